export * from './audio-rules';
export * from './transcribe-speech';
export * from './transcription-model';
