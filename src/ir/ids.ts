/** Process-wide id counters for tensors and ops (ids in records are unique per process). */
let nextTensor = 1;
let nextOp = 1;
export function newTensorId(): number {
  return nextTensor++;
}
export function newOpId(): number {
  return nextOp++;
}
