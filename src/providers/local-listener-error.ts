/** The listener could not open its port: the start fails naming the variable. */
export class LocalListenerError extends Error {
  constructor(variable: string, host: string, port: number, cause: NodeJS.ErrnoException) {
    const why = cause.code === 'EADDRINUSE' ? 'is in use (another node or another Bastion?)' : `cannot be opened (${cause.code ?? cause.message})`;
    super(`${variable}: port ${port} on ${host} ${why}; set ${variable} to a free port${variable === 'EVM_LOCAL_RPC_PORT' ? ', 0 for a random one, or off' : ' or 0 for a random one'}`, { cause });
    this.name = 'LocalListenerError';
  }
}
