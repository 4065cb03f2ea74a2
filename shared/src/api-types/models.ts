/**
 * What a model is for. A model flagged "Transcribes speech" serves dictation and one flagged "Embeds
 * text" serves knowledge bases; neither answers chats, so no chat, agent or default may use it.
 */
export const answersChats = (model: { transcribesSpeech: boolean; embedsText: boolean }): boolean => !model.transcribesSpeech && !model.embedsText;
