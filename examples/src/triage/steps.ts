import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

/** Keyword rules, deliberately simple: the eval's `feature_request` case shows where they fall short. */
const RULES: Array<[category: string, pattern: RegExp]> = [
  ['billing', /\b(invoice|refund|charged?|payment)\b/i],
  ['bug', /\b(crash(es|ed)?|error|broken|fails?)\b/i]
]

export const classify = defineStep({
  name: 'classify',
  description: 'Sorts a support ticket into billing, bug or other, and says how urgent it is.',
  inputSchema: Type.Object({ text: Type.String() }),
  outputSchema: Type.Object({ category: Type.String(), urgency: Type.Union([Type.Literal('normal'), Type.Literal('high')]) }),
  run: ({ text }) => ({
    category: RULES.find(([, pattern]) => pattern.test(text))?.[0] ?? 'other',
    urgency: /\b(urgent|asap|immediately)\b/i.test(text) ? 'high' as const : 'normal' as const
  })
})

export const draftReply = defineStep({
  name: 'draftReply',
  description: 'A first reply to the ticket, by category.',
  inputSchema: Type.Object({ category: Type.String() }),
  outputSchema: Type.Object({ reply: Type.String() }),
  run: ({ category }) => ({
    reply: category === 'billing'
      ? 'Thanks for writing. Our billing team will look at your account and answer within one business day.'
      : category === 'bug' ? 'Sorry about that! Engineering has the report.' : 'Thanks, we will get back to you.'
  })
})
