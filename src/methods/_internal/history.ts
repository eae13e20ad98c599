/** The client id prefix in a caller's log name (`client:<prefix>`), or `null` for another caller (HTTP, a plugin). */
export function clientPrefixOf(by: string): string | null {
  return by.startsWith("client:") ? by.slice("client:".length) : null;
}
