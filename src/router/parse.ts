/**
 * Device strings for command lines ('wgpu:0', 'wgpu:cpu', 'cpu', 'cpu:1'): each device family
 * parses its own spelling; the Router then picks the inner backend that owns the result.
 */
import { CpuDevice } from '../devices/cpu.js';
import type { Device } from '../devices/device.js';

type Parser = (s: string) => Device | undefined;

/** Parsers by the `backend` field of a device tag; a family without one matches exact keys only. */
const PARSERS = new Map<string, Parser>([['cpu', (s) => (s === 'cpu' || /^cpu:[^\s]+$/.test(s) ? CpuDevice.named(s as CpuDevice['key']) : undefined)]]);

/** Lets a device family (e.g. WebGPU) add its spelling without the router importing its backend. */
export function registerDeviceParser(family: string, parse: Parser): void {
  PARSERS.set(family, parse);
}

export function parseInnerDevice(family: string, s: string): Device | undefined {
  return PARSERS.get(family)?.(s);
}
