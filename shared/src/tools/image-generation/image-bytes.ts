/** The picture types the tool keeps, judged by their bytes (what the endpoint says they are counts for nothing). */
const SIGNATURES: { mediaType: string; extension: string; matches: (bytes: Uint8Array) => boolean }[] = [
  { mediaType: 'image/png', extension: 'png', matches: (bytes) => startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mediaType: 'image/jpeg', extension: 'jpg', matches: (bytes) => startsWith(bytes, [0xff, 0xd8, 0xff]) },
  { mediaType: 'image/webp', extension: 'webp', matches: (bytes) => startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes.subarray(8), [0x57, 0x45, 0x42, 0x50]) },
];

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, index) => bytes[index] === byte);
}

/** PNG, JPEG or WebP by signature, or undefined for anything else (an SVG, an HTML error page, noise). */
export function pictureTypeOf(bytes: Uint8Array): { mediaType: string; extension: string } | undefined {
  const found = SIGNATURES.find((signature) => signature.matches(bytes));
  return found && { mediaType: found.mediaType, extension: found.extension };
}
