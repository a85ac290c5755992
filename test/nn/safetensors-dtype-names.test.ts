/** Safetensors headers whose dtype string names an Object.prototype member: the usual "cannot read" error. */
import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../../src/errors.js';
import { decodeSafetensors } from '../../src/record/safetensors.js';

/** A file laid out by hand: 8-byte little-endian header length, the JSON header, the data. */
function file(header: string, data: number[]): Uint8Array {
  const h = Array.from(header, (c) => c.charCodeAt(0));
  return Uint8Array.from([h.length & 0xff, (h.length >> 8) & 0xff, 0, 0, 0, 0, 0, 0, ...h, ...data]);
}

describe('safetensors dtype names', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])("refuses dtype '%s' as one Switchyard cannot read", (dtype) => {
    const bytes = file(`{"w":{"dtype":"${dtype}","shape":[1],"data_offsets":[0,8]}}`, [0, 0, 0, 0, 0, 0, 0, 0]);
    expect(() => decodeSafetensors(bytes)).toThrow(ArgumentError);
    expect(() => decodeSafetensors(bytes)).toThrow(new RegExp(`tensor 'w' has dtype ${dtype}, which Switchyard cannot read`));
  });
});
