/** The transformer block the fusion and block-profile benches time (torch's twin is in their python). */
import type { Backend } from '../src/backends/backend.js';
import { nn, tidy, type Tensor } from '../src/index.js';

/** A post-norm transformer encoder block, attention written with matmul and softmax. */
export class Block<B extends Backend> extends nn.Module<B> {
  readonly q: nn.Linear<B>;
  readonly k: nn.Linear<B>;
  readonly v: nn.Linear<B>;
  readonly o: nn.Linear<B>;
  readonly f1: nn.Linear<B>;
  readonly f2: nn.Linear<B>;
  readonly ln1: nn.LayerNorm<B>;
  readonly ln2: nn.LayerNorm<B>;

  constructor(
    b: B,
    readonly d: number,
    readonly heads: number,
  ) {
    super();
    this.q = new nn.Linear(b, d, d);
    this.k = new nn.Linear(b, d, d);
    this.v = new nn.Linear(b, d, d);
    this.o = new nn.Linear(b, d, d);
    this.f1 = new nn.Linear(b, d, 4 * d);
    this.f2 = new nn.Linear(b, 4 * d, d);
    this.ln1 = new nn.LayerNorm(b, d);
    this.ln2 = new nn.LayerNorm(b, d);
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    const [batch, seq] = x.shape as [number, number, number];
    const dh = this.d / this.heads;
    const split = (t: Tensor<B, 'float'>) => t.reshape([batch, seq, this.heads, dh]).permute([0, 2, 1, 3]);
    return tidy(() => {
      const att = split(this.q.forward(x)).matmul(split(this.k.forward(x)).transpose()).mul(1 / Math.sqrt(dh)).softmax(-1);
      const a = att.matmul(split(this.v.forward(x))).permute([0, 2, 1, 3]).reshape([batch, seq, this.d]);
      const x1 = this.ln1.forward(x.add(this.o.forward(a)));
      return this.ln2.forward(x1.add(this.f2.forward(this.f1.forward(x1).gelu())));
    });
  }
}

/**
 * The same block in PyTorch, for the benches' python baselines (interpolated into their scripts):
 * `torch_block(d, heads, seq, batch, dev)` returns one forward + backward step.
 */
export const TORCH_BLOCK = String.raw`
def torch_block(d, h, S, Bt, dev):
    import torch.nn as nn, torch.nn.functional as F
    dh = d // h
    lin = lambda a, b: nn.Linear(a, b).to(dev)
    q, k, v, o, f1, f2 = lin(d, d), lin(d, d), lin(d, d), lin(d, d), lin(d, 4 * d), lin(4 * d, d)
    ln1, ln2 = nn.LayerNorm(d).to(dev), nn.LayerNorm(d).to(dev)
    params = [p for m in (q, k, v, o, f1, f2, ln1, ln2) for p in m.parameters()]
    xt = torch.randn(Bt, S, d, device=dev)
    def split(t): return t.reshape(Bt, S, h, dh).permute(0, 2, 1, 3)
    def step():
        for p in params: p.grad = None
        att = ((split(q(xt)) @ split(k(xt)).transpose(-1, -2)) * (dh ** -0.5)).softmax(-1)
        a = (att @ split(v(xt))).permute(0, 2, 1, 3).reshape(Bt, S, d)
        x1 = ln1(xt + o(a))
        y = ln2(x1 + f2(F.gelu(f1(x1))))
        y.square().mean().backward()
    return step
`;
