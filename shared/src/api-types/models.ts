/**
 * What a model is for. A model flagged "Transcribes speech" serves dictation, one flagged "Embeds
 * text" serves knowledge bases and one flagged "Generates images" the image-generation tool; none of
 * them answers chats, so no chat, agent or default may use it.
 */
export const answersChats = (model: { transcribesSpeech: boolean; embedsText: boolean; generatesImages: boolean }): boolean =>
  !model.transcribesSpeech && !model.embedsText && !model.generatesImages;
