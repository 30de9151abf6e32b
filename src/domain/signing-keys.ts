/**
 * Token signing keys as the store keeps them, shared by every replica.
 */

/** A token signing key. The private JWK never leaves the server. */
export interface SigningKeyRecord {
  kid: string;
  /** JSON of the private JWK (ES256). */
  privateJwk: string;
  /** JSON of the public JWK. */
  publicJwk: string;
  createTime: number;
  /** After this the key signs nothing; it stays published until retireTime. */
  rotateTime: number;
  /** After this the key is neither used nor published. */
  retireTime: number;
}
