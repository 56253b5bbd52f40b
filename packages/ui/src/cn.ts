import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

/**
 * Class names from strings, arrays and `{ name: condition }` maps; when two Tailwind utilities
 * set the same thing (`px-2` and a caller's `px-4`), the later one wins instead of both
 * landing in the markup and the stylesheet's order deciding.
 */
export function cn(...inputs: ClassValue[]): string {
  return twMerge(clsx(inputs));
}
