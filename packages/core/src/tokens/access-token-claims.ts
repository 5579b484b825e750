/**
 * RFC 9068 §2.2 claims, plus `principal` (the owner's e-mail) and `gid` (the grant). A
 * client-credentials token (RFC 9068 §2.2: `sub` is the client's id) has no `principal`.
 */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  principal?: string;
  gid: string;
}
