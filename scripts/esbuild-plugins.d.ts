// Types of scripts/esbuild-plugins.js for the tests that build with its plugins.
import type { Plugin } from 'esbuild';

export function lazyHttp2(): Plugin;
export function lazyAssert(): Plugin;
export function llhttpWasmFiles(): Plugin;
export function writeLlhttpWasm(dir: string): void;
export const LLHTTP_WASM: { module: string; file: string }[];
export function builtinsWithoutNamespaces(): Plugin;
