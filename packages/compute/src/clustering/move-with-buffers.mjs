// @ts-check
import { move, transferableSymbol, valueSymbol } from "piscina";

/**
 * `value` marked for Piscina (as a task's input or its result) so that the given buffers are
 * transferred to the other thread, not copied; Piscina's move() alone takes a single buffer.
 * The buffers are unusable on this side afterwards.
 * @param {object} value @param {ArrayBuffer[]} buffers
 */
export function moveWithBuffers(value, buffers) {
  return move({ [transferableSymbol]: buffers, [valueSymbol]: value });
}
