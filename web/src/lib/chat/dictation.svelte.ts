/**
 * Dictation: the microphone recorded with MediaRecorder (WebM/Opus where the browser has it,
 * else Ogg or MP4), sent to `POST /api/transcriptions` when the user stops, and the text handed
 * to the message box: never sent by itself. A recording is bounded by time and size (the limits
 * the API enforces, from `@agentq/shared/transcription-rules`); at the bound it stops and is
 * transcribed as if the user had stopped it. Escape (`cancel`) drops it, or the transcription.
 */
import { MAX_RECORDING_SECONDS, MAX_TRANSCRIPTION_BYTES } from '@agentq/shared/transcription-rules';
import { ApiError } from '../api.ts';
import { transcribe as transcribeByApi } from './transcriptions-api.ts';

export type DictationState = 'idle' | 'starting' | 'recording' | 'transcribing';

/** Why a dictation ended without text, for the composer to say in words. */
export type DictationProblem =
  | { kind: 'unsupported' | 'no-microphone' | 'permission-denied' | 'microphone-busy' | 'too-long' | 'nothing-heard' | 'unavailable' }
  | { kind: 'failed'; message: string };

/** What the recorder is asked for, best first: small Opus files every transcription API takes. */
const RECORDING_TYPES = ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'];
/** Speech needs little: 5 minutes at 64 kbit/s is ~2.4 MB. */
const AUDIO_BITS_PER_SECOND = 64_000;
/** The recorder hands over what it has each second, so the size bound is checked as it grows. */
const TIMESLICE_MS = 1000;

type Options = {
  /** The transcribed text, for the message box. */
  ontext: (text: string) => void;
  /** ISO-639-1 language of the UI, a hint for the model. */
  language: () => string;
  maxSeconds?: number;
  maxBytes?: number;
  transcribe?: (audio: Blob, language: string, signal: AbortSignal) => Promise<string>;
};

export class Dictation {
  state = $state<DictationState>('idle');
  elapsedSeconds = $state(0);
  problem = $state<DictationProblem | undefined>(undefined);
  /** The last recording reached its time or size bound and was stopped there. */
  stoppedAtLimit = $state(false);

  readonly maxSeconds: number;
  readonly #maxBytes: number;
  readonly #options: Options;
  #stream: MediaStream | undefined;
  #recorder: MediaRecorder | undefined;
  #chunks: Blob[] = [];
  #bytes = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Bumped by every start and cancel: an await that comes back to another generation was cancelled. */
  #generation = 0;
  #transcription: AbortController | undefined;

  constructor(options: Options) {
    this.#options = options;
    this.maxSeconds = options.maxSeconds ?? MAX_RECORDING_SECONDS;
    this.#maxBytes = options.maxBytes ?? MAX_TRANSCRIPTION_BYTES;
  }

  /** Opens the microphone and records; a refusal becomes `problem`. */
  async start(): Promise<void> {
    if (this.state !== 'idle') return;
    this.problem = undefined;
    this.stoppedAtLimit = false;
    if (typeof MediaRecorder === 'undefined' || !navigator.mediaDevices?.getUserMedia) {
      this.problem = { kind: 'unsupported' };
      return;
    }
    this.state = 'starting';
    const generation = ++this.#generation;
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (error) {
      if (generation !== this.#generation) return;
      this.state = 'idle';
      this.problem = microphoneProblem(error);
      return;
    }
    if (generation !== this.#generation) {
      stopTracks(stream);
      return;
    }
    this.#record(stream);
  }

  #record(stream: MediaStream) {
    const mimeType = RECORDING_TYPES.find((type) => MediaRecorder.isTypeSupported(type));
    let recorder: MediaRecorder;
    try {
      recorder = new MediaRecorder(stream, { ...(mimeType ? { mimeType } : {}), audioBitsPerSecond: AUDIO_BITS_PER_SECOND });
      recorder.start(TIMESLICE_MS);
    } catch (error) {
      stopTracks(stream);
      this.state = 'idle';
      this.problem = { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
      return;
    }
    this.#stream = stream;
    this.#recorder = recorder;
    this.#chunks = [];
    this.#bytes = 0;
    this.elapsedSeconds = 0;
    recorder.ondataavailable = (event) => {
      if (event.data.size === 0) return;
      this.#chunks.push(event.data);
      this.#bytes += event.data.size;
      if (this.#bytes >= this.#maxBytes * 0.95) this.#atLimit();
    };
    const startedAt = performance.now();
    this.#timer = setInterval(() => {
      this.elapsedSeconds = Math.floor((performance.now() - startedAt) / 1000);
      if (this.elapsedSeconds >= this.maxSeconds) this.#atLimit();
    }, 250);
    this.state = 'recording';
  }

  #atLimit() {
    if (this.state !== 'recording') return;
    this.stoppedAtLimit = true;
    void this.stop();
  }

  /** Stops recording and transcribes what was said. */
  async stop(): Promise<void> {
    if (this.state !== 'recording') return;
    // At once: a second stop (a double click, the limit meanwhile) finds nothing to do.
    this.state = 'transcribing';
    const generation = this.#generation;
    const audio = await this.#finishRecording();
    if (generation !== this.#generation) return;
    if (audio.size === 0) {
      this.problem = { kind: 'nothing-heard' };
      this.state = 'idle';
      return;
    }
    const transcription = new AbortController();
    this.#transcription = transcription;
    try {
      const text = await (this.#options.transcribe ?? transcribeByApi)(audio, this.#options.language(), transcription.signal);
      if (transcription.signal.aborted) return;
      if (text.trim()) this.#options.ontext(text.trim());
      else this.problem = { kind: 'nothing-heard' };
    } catch (error) {
      if (!transcription.signal.aborted) this.problem = transcriptionProblem(error);
    } finally {
      if (this.#transcription === transcription) {
        this.#transcription = undefined;
        this.state = 'idle';
      }
    }
  }

  /** Drops the recording (or the transcription under way); nothing reaches the message box. */
  cancel(): void {
    this.#generation += 1;
    this.stoppedAtLimit = false;
    if (this.state === 'recording') void this.#finishRecording();
    this.#transcription?.abort();
    this.#transcription = undefined;
    this.state = 'idle';
  }

  /** Releases the microphone when the composer goes away. */
  dispose(): void {
    this.cancel();
  }

  /** Stops the recorder, releases the microphone (the browser's recording indicator goes off) and gives the audio. */
  #finishRecording(): Promise<Blob> {
    clearInterval(this.#timer);
    const recorder = this.#recorder;
    const stream = this.#stream;
    this.#recorder = undefined;
    this.#stream = undefined;
    if (!recorder) return Promise.resolve(new Blob([]));
    return new Promise((resolve) => {
      recorder.onstop = () => {
        if (stream) stopTracks(stream);
        resolve(new Blob(this.#chunks, { type: recorder.mimeType || 'audio/webm' }));
      };
      if (recorder.state === 'inactive') recorder.onstop(new Event('stop'));
      else recorder.stop();
    });
  }
}

function stopTracks(stream: MediaStream) {
  for (const track of stream.getTracks()) track.stop();
}

/** getUserMedia's DOMException names, in the words a user can act on. */
function microphoneProblem(error: unknown): DictationProblem {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return { kind: 'permission-denied' };
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return { kind: 'no-microphone' };
  if (name === 'NotReadableError' || name === 'AbortError') return { kind: 'microphone-busy' };
  return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
}

function transcriptionProblem(error: unknown): DictationProblem {
  if (error instanceof ApiError) {
    if (error.status === 413) return { kind: 'too-long' };
    if (error.status === 404 || error.status === 403) return { kind: 'unavailable' };
  }
  return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
}
