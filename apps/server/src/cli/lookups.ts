import { DomainError, type Gatehouse, type ProductApi } from '@gatehouse/core';

// What a command acts on, looked up by the name the operator gave. One that does not exist is
// `not_found` (exit code 1), for users as for clients, sessions and grants (docs/operations.md,
// "Command line for operators"; docs/decisions/0044: an unknown client is refused, not wrong usage).

/**
 * The user an e-mail names (ignoring case), or `DomainError('not_found')`.
 *
 * @example
 * const user = await userByEmail(product, 'ada@example.com');
 */
export async function userByEmail(product: ProductApi, email: string) {
  const user = await product.findUserByEmail(email);
  if (!user) throw new DomainError('not_found', `--email ${email}: no user with this e-mail`);
  return user;
}

/** Nothing when `--client` names a client, else `DomainError('not_found')`. */
export async function knownClient(gatehouse: Gatehouse, clientId: string): Promise<void> {
  if (!(await gatehouse.listClients()).some((client) => client.clientId === clientId)) throw new DomainError('not_found', `--client ${clientId}: no such client`);
}
