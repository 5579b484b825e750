import type { Session, UserProfile } from '@gatehouse/core';

/** Who is signed in on this browser, set by `loadSignedIn` (undefined: nobody). */
export interface SignedInState {
  session: Session;
  user: UserProfile;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Set by `requestContext`. */
      requestId?: string;
      /** Set by `loadSignedIn`. */
      signedIn?: SignedInState;
      /** Set by `provideCsrfToken`: the value every form of the page must post back as `csrf_token`. */
      csrfToken?: string;
      /** The login form's double-submit token once this response has one (read or newly set). */
      loginCsrfToken?: string;
    }
  }
}
