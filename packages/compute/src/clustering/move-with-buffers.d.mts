// Types of move-with-buffers.mjs for TypeScript files under the root config, which does not read JavaScript.
export function moveWithBuffers(value: object, buffers: ArrayBuffer[]): unknown;
