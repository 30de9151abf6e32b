/**
 * Identity providers as the store keeps them: an organization's OIDC login for people.
 */

/** An identity provider's OIDC settings. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** Never returned by the API. */
  clientSecret: string;
  additionalScopes: string[];
  groupsClaim: string;
}

export interface IdentityProviderRecord {
  uid: string;
  parentUid: string;
  name: string;
  description: string;
  /** The role granted to people on their first login. */
  defaultRole: string;
  oidc: OidcSettings;
  createTime: number;
  updateTime: number;
}
