/**
 * What the agent reads from its environment: where its state folder goes by default and whether
 * the machine has a display. The only reader of process.env in the agent (house rule).
 */
export interface AgentEnv {
  /** XDG_CONFIG_HOME, else undefined. */
  readonly configHome: string | undefined;
  readonly home: string | undefined;
  readonly hasDisplay: boolean;
}

export function readAgentEnv(source: NodeJS.ProcessEnv = process.env): AgentEnv {
  const set = (value: string | undefined) =>
    value === undefined || value === "" ? undefined : value;
  return {
    configHome: set(source.XDG_CONFIG_HOME),
    home: set(source.HOME),
    hasDisplay: Boolean(set(source.DISPLAY) ?? set(source.WAYLAND_DISPLAY)),
  };
}
