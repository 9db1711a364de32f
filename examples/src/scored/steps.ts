import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

const MAX_SUMMARY = 60

export const summarize = defineStep({
  name: 'summarize',
  description: `First sentence of the text, cut to ${MAX_SUMMARY} characters.`,
  inputSchema: Type.Object({ text: Type.String() }),
  outputSchema: Type.Object({ summary: Type.String() }),
  run: ({ text }) => {
    const sentence = text.trim().split(/(?<=[.!?])\s/)[0] ?? ''
    return { summary: sentence.length > MAX_SUMMARY ? `${sentence.slice(0, MAX_SUMMARY - 1)}…` : sentence }
  }
})
