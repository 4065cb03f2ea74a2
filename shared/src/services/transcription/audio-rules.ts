/**
 * What dictation may send to be transcribed: a recording in one of the containers browsers record
 * (WebM/Opus from Chrome and Firefox, MP4/AAC from Safari, Ogg) or a common audio file, judged by
 * the type the client declares and the bytes, which must agree. The upstream gets a file name with
 * the matching extension: OpenAI's endpoint tells formats apart by it.
 *
 * Browser-safe (no Node or database imports): the composer bounds a recording by the same limits
 * (`@agentq/shared/transcription-rules`).
 */

/** OpenAI's own limit on `POST /audio/transcriptions`. */
export const MAX_TRANSCRIPTION_BYTES = 25 * 1024 * 1024;
/** The route's body limit: the largest recording plus the multipart envelope. */
export const TRANSCRIPTION_UPLOAD_LIMIT_BYTES = MAX_TRANSCRIPTION_BYTES + 64 * 1024;
/** The composer stops recording here (5 minutes of Opus at 64 kbit/s is ~2.4 MB, far under the byte limit). */
export const MAX_RECORDING_SECONDS = 5 * 60;

type AudioFormat = { types: readonly string[]; extension: string; matches: (bytes: Uint8Array) => boolean };

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) => prefix.every((byte, index) => bytes[at + index] === byte);
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

const AUDIO_FORMATS: readonly AudioFormat[] = [
  // EBML header: WebM (and Matroska).
  { types: ['audio/webm', 'video/webm'], extension: 'webm', matches: (bytes) => startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3]) },
  { types: ['audio/ogg', 'application/ogg'], extension: 'ogg', matches: (bytes) => startsWith(bytes, ascii('OggS')) },
  // ISO base media: a `ftyp` box first.
  { types: ['audio/mp4', 'audio/m4a', 'audio/x-m4a', 'video/mp4'], extension: 'mp4', matches: (bytes) => startsWith(bytes, ascii('ftyp'), 4) },
  // An ID3 tag, else an MPEG audio frame sync (11 bits set).
  { types: ['audio/mpeg', 'audio/mp3'], extension: 'mp3', matches: (bytes) => startsWith(bytes, ascii('ID3')) || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0) },
  { types: ['audio/wav', 'audio/wave', 'audio/x-wav'], extension: 'wav', matches: (bytes) => startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WAVE'), 8) },
  { types: ['audio/flac', 'audio/x-flac'], extension: 'flac', matches: (bytes) => startsWith(bytes, ascii('fLaC')) },
];

/** The declared types accepted, for the route's description and the client's checks. */
export const TRANSCRIBABLE_TYPES = AUDIO_FORMATS.flatMap((format) => format.types);

/** `audio/webm;codecs=opus` → `audio/webm`. */
export const baseMediaType = (type: string) => type.split(';')[0]!.trim().toLowerCase();

export type AudioVerdict =
  | { ok: true; mediaType: string; fileName: string }
  | { ok: false; status: 400 | 413 | 415; message: string };

/** Whether a recording may be sent upstream, and as what. */
export function judgeAudio(declaredType: string, bytes: Uint8Array): AudioVerdict {
  if (bytes.length === 0) return { ok: false, status: 400, message: 'The recording is empty: record something before stopping' };
  if (bytes.length > MAX_TRANSCRIPTION_BYTES) {
    return { ok: false, status: 413, message: `The recording is too long: at most ${MAX_TRANSCRIPTION_BYTES / 1024 / 1024} MiB of audio can be transcribed at once` };
  }
  const mediaType = baseMediaType(declaredType);
  const format = AUDIO_FORMATS.find((candidate) => candidate.types.includes(mediaType));
  if (!format) {
    return { ok: false, status: 415, message: `Audio of type '${mediaType || 'none'}' cannot be transcribed: send WebM, Ogg, MP4, MP3, WAV or FLAC audio (${TRANSCRIBABLE_TYPES.join(', ')})` };
  }
  if (!format.matches(bytes)) return { ok: false, status: 415, message: `The file is not ${mediaType} audio: its bytes do not match the type it declares` };
  return { ok: true, mediaType, fileName: `recording.${format.extension}` };
}
