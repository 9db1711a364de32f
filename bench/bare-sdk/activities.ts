/** The bare SDK's steps (workflows.ts). `stage` reports its times as a Flowport local step does. */
export async function greet (name: string): Promise<{ text: string }> {
  return { text: `Hello, ${name}!` }
}

export async function stage (value: number): Promise<{ value: number, startTime: string, endTime: string }> {
  const startTime = new Date().toISOString()
  return { value: value + 1, startTime, endTime: new Date().toISOString() }
}
