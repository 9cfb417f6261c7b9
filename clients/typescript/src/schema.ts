// Generated from /openapi.json by `npm run client:generate` (test/platform/api-types.test.ts). Do not edit.
export interface paths {
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Public keys that verify access tokens (no tenant needed)
         * @description No tenant header: the request names its tenant itself (path, state or signature).
         */
        get: operations["getWellKnownJwksJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/accreditations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's accreditation claims, newest first (the user, an admin or an API key)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getAccreditations"];
        put?: never;
        /**
         * Submit an accreditation claim (the user for themself; an API key or admin names the user)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postAccreditations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/accreditations/{id}/decision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decide a claim: approved or rejected, with an optional reason (once; a second decision is 409)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postAccreditationsByIdDecision"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/accreditations/pending": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's claims awaiting a decision, oldest first (the review queue of an admin or the back end)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getAccreditationsPending"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tenant's API keys (not revoked; never their secrets)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getApiKeys"];
        put?: never;
        /**
         * Create an API key (its secret is shown once)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key (refused at once)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        delete: operations["deleteApiKeysByKeyId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{keyId}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new key with the same name and scopes; the old one stays valid for the overlap
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postApiKeysByKeyIdRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log of the tenant, newest first (keyset paging with beforeId); a time range; or every match streamed as NDJSON (export)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/2fa/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn 2FA off (needs the account password)
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postAuth2faDisable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/2fa/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn 2FA on with the setup code (mailed, or from the authenticator app)
         * @description With TOTP the answer carries ten single-use recovery codes, shown this once. Enabling one method replaces the other.
         *
         *     Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postAuth2faEnable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/2fa/recovery-codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the TOTP recovery codes (needs the account password)
         * @description Ten new single-use codes, shown once; the old ones stop working. 409 when TOTP is not the active method.
         *
         *     Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postAuth2faRecoveryCodes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/2fa/setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start 2FA setup: a code is mailed (email), or an authenticator key is returned (totp)
         * @description method email: a setup code is mailed. method totp: the answer carries the secret, its otpauth:// URI and a QR code; confirm with POST /auth/2fa/enable. One method at a time: the method already on is a 409; switching from the other one needs `password` (403 when wrong), and enabling replaces it.
         *
         *     Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postAuth2faSetup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/2fa/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Two-factor status of the caller
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getAuth2faStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/2fa/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Second login step: challenge token and code (mailed, authenticator app, or a recovery code) give the pair
         * @description Public within the tenant: only `x-tenant-id`.
         */
        post: operations["postAuth2faVerify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register with email and password
         * @description Public within the tenant: only `x-tenant-id`.
         */
        post: operations["postAuthEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/email/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in with email and password
         * @description Answers a token pair, or a second-factor challenge when 2FA is on.
         *
         *     Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 30 requests a minute per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthEmailLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/email/resend-otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a new verification code
         * @description Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 10 requests a 10 minutes per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthEmailResendOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/email/resend-verification": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send the verification mail again (link and code)
         * @description Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 10 requests a 10 minutes per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthEmailResendVerification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/email/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Legacy link flow: verify with the single-use token from the mail as the bearer
         * @description The bearer is the verification token mailed to the address, never an access token: an access token cannot verify its own email.
         *
         *     The single-use token from the mail as the bearer (never an access token), with `x-tenant-id`.
         */
        get: operations["getAuthEmailVerify"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/email/verify-otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify the email with the 6-digit code from the mail
         * @description Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 30 requests a 10 minutes per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthEmailVerifyOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/email/verify-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify the email with the single-use token from the mail
         * @description Public within the tenant: only `x-tenant-id`.
         */
        post: operations["postAuthEmailVerifyToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/forgot-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mail a password reset link (30 minutes, single use)
         * @description Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 10 requests a 10 minutes per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthForgotPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/forgot-password/request-otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mail a password reset code
         * @description Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 10 requests a 10 minutes per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthForgotPasswordRequestOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/forgot-password/verify-otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange the reset code for a short-lived reset token
         * @description Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 30 requests a 10 minutes per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthForgotPasswordVerifyOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/idp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start a login at the tenant's external OpenID provider
         * @description Answers the authorization URL (PKCE S256, nonce, single-use state valid 10 minutes). redirectUrl must match the allow-list.
         *
         *     Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 30 requests a minute per client address within the tenant; over it, 429 with `Retry-After`.
         */
        get: operations["getAuthIdp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/idp/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where the provider returns the browser; redirects to the client URL
         * @description Redirects (303) to the redirectUrl given to GET /auth/idp with the token pair in the URL fragment (accessToken, refreshToken, tokenType, expiresIn, accessTokenExpiresAt, refreshTokenExpiresAt), or twoFactorRequired and challengeToken, or error and error_description. An unknown, altered, expired or used state is a 400; a tenant whose provider was removed meanwhile is 503 PROVIDER_NOT_CONFIGURED.
         *
         *     No tenant header: the request names its tenant itself (path, state or signature).
         *
         *     Rate limit: 30 requests a minute per client address; over it, 429 with `Retry-After`.
         */
        get: operations["getAuthIdpCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/idp/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's external identity provider settings (secret masked)
         * @description A tenant without one is 503 PROVIDER_NOT_CONFIGURED (as every provider kind).
         *
         *     Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getAuthIdpConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in with email and password
         * @description Answers a token pair, or a second-factor challenge when 2FA is on.
         *
         *     Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 30 requests a minute per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke the caller's session (its refresh and access tokens)
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postAuthLogout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's passkeys
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getAuthPasskeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkeys/{passkeyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove one of the caller's passkeys
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        delete: operations["deleteAuthPasskeysByPasskeyId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkeys/login/begin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Begin a passkey login (no email, no password)
         * @description Answers the WebAuthn request options with a single-use challenge (5 minutes) and no credentials listed: the authenticator offers the user's discoverable passkeys.
         *
         *     Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 30 requests a minute per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthPasskeysLoginBegin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkeys/login/finish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finish a passkey login with the browser's assertion
         * @description Answers the token pair of POST /auth/login. A passkey is two factors (the device, and the user verified on it): no email second factor is asked.
         *
         *     Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 30 requests a minute per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthPasskeysLoginFinish"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkeys/register/begin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Begin registering a passkey to the caller
         * @description Answers the WebAuthn creation options with a single-use challenge (5 minutes). The relying party is the host of the tenant's app URL.
         *
         *     Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postAuthPasskeysRegisterBegin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkeys/register/finish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finish a passkey registration with the browser's answer
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postAuthPasskeysRegisterFinish"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a refresh token for a new pair
         * @description Public within the tenant: only `x-tenant-id`.
         */
        post: operations["postAuthRefresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/reset-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a new password with a reset token; revokes every session
         * @description Public within the tenant: only `x-tenant-id`.
         */
        put: operations["putAuthResetPassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live sessions of a user (device, address, created, last used, current)
         * @description A user sees its own; an admin or the API key names any user of the tenant in `userId` (an admin defaults to itself). Another user’s, as a plain user: 404.
         *
         *     Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getAuthSessions"];
        put?: never;
        post?: never;
        /**
         * End every session of a user but the caller's own (sign out everywhere)
         * @description A user ends its other sessions; an admin or the API key names the user in `userId` and ends all of its sessions (but the admin’s own).
         *
         *     Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        delete: operations["deleteAuthSessions"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End one session: its refresh token is refused at once, its access tokens within 5 seconds
         * @description A user ends its own; an admin or the API key any of the tenant. Another user’s session, as a plain user: 404.
         *
         *     Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        delete: operations["deleteAuthSessionsBySessionId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/token-status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * true when a password-reset token is valid; otherwise 400
         * @description Public within the tenant: only `x-tenant-id`.
         *
         *     Rate limit: 60 requests a 10 minutes per client address within the tenant; over it, 429 with `Retry-After`.
         */
        post: operations["postAuthTokenStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/users/{userId}/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a token pair for a user of the tenant
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        post: operations["postAuthUsersByUserIdToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link-sandbox/originators": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The originators, in creation order (count 1-25 and offset required)
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        get: operations["getBankLinkSandboxOriginators"];
        put?: never;
        /**
         * Create an originator (body: the tenant's sandbox credentials and the company name)
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        post: operations["postBankLinkSandboxOriginators"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link-sandbox/originators/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An originator and its diligence status
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        get: operations["getBankLinkSandboxOriginatorsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link-sandbox/originators/{id}/kyb": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start the KYB questionnaire of an originator: answers its onboarding URL
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        post: operations["postBankLinkSandboxOriginatorsByIdKyb"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link/items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's linked items with their accounts (masks only)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getBankLinkItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link/items/{itemId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Unlink an item: removed at the provider, then here
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        delete: operations["deleteBankLinkItemsByItemId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link/link-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A link token and the hosted Link page for the caller (the redirect must be in the tenant's allow-list)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getBankLinkLinkToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link/public-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange the public token from the Link page: stores the item and its accounts (the access token is kept sealed)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postBankLinkPublicToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link/tenant/link-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A link token for the tenant's own funding account
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        get: operations["getBankLinkTenantLinkToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link/tenant/originator": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's own originator profile and diligence status (404 until one exists)
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        get: operations["getBankLinkTenantOriginator"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bank-link/webhooks/{tenantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Provider webhooks: an ES256 JWT in the Plaid-Verification header over the SHA-256 of the body (docs/providers.md)
         * @description No tenant header: the request names its tenant itself (path, state or signature).
         */
        post: operations["postBankLinkWebhooksByTenantId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/business-profiles/pending": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's business profiles awaiting the provider's decision (pending, in_review), oldest first (an admin or the back end)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getBusinessProfilesPending"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/callbacks/business-profile-a/{tenantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * business-profile-a webhook (business.created, business.updated)
         * @description Signed with HMAC-SHA256 of the raw body under the tenant's webhook secret, hex, in x-middesk-signature-256 (docs/providers.md). Replays change nothing.
         *
         *     No tenant header: the request names its tenant itself (path, state or signature).
         */
        post: operations["postCallbacksBusinessProfileAByTenantId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-a/transfers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's transfers, newest first, with their recorded statuses and chain hashes (an admin or the back end; filters: status, userId)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getCustodyATransfers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-a/transfers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A transfer of the tenant with its recorded statuses and chain hashes, as stored (an admin or the back end)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getCustodyATransfersById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-a/vaults/{vaultId}/wallets/{walletId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Rename and describe a vault wallet; accountSet on an XRPL wallet issues an AccountSet (DefaultRipple)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         *
         *     Idempotent when a key is sent in the `Idempotency-Key` header: a retry replays the first answer (`Idempotent-Replayed: true`), the same key with another request is 409.
         */
        put: operations["putCustodyAVaultsByVaultIdWalletsByWalletId"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A transaction and its current status (refreshed from the provider until final)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getCustodyAVaultsByVaultIdWalletsByWalletIdTransactionsByTransactionId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Transfer from a vault wallet (Idempotency-Key header: a retry never sends twice; the same key with another body is 409)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         *
         *     Idempotent when a key is sent in the `Idempotency-Key` header: a retry replays the first answer (`Idempotent-Replayed: true`), the same key with another request is 409.
         */
        post: operations["postCustodyAVaultsByVaultIdWalletsByWalletIdTransactionsTransfer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-a/webhooks/{tenantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * custody-a webhooks: ECDSA P-256 over `${timestamp}.${body}` (x-custody-signature, x-custody-timestamp; docs/providers.md)
         * @description No tenant header: the request names its tenant itself (path, state or signature).
         */
        post: operations["postCustodyAWebhooksByTenantId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/message": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Signs the message (EIP-191) with the signed challenge
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postCustodyBMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/message/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A user-action challenge for an EIP-191 signature of a text message
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postCustodyBMessageChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/message/eip712/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A user-action challenge for an EIP-712 typed-data signature
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postCustodyBMessageEip712Challenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/message/eip712/sign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Signs the typed data (EIP-712) with the signed challenge
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postCustodyBMessageEip712Sign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/raw-transaction/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A user-action challenge for signing and broadcasting an unsigned transaction with the caller's wallet
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postCustodyBRawTransactionChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/raw-transaction/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Signs the transaction with the signed challenge and broadcasts it; answers its hash (Idempotency-Key optional)
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         *
         *     Idempotent when a key is sent in the `Idempotency-Key` header: a retry replays the first answer (`Idempotent-Replayed: true`), the same key with another request is 409.
         */
        post: operations["postCustodyBRawTransactionComplete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Completes the registration with the new credential (its attestation over the challenge); a second registration is 409
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postCustodyBUsers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/users/auth-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The provider's token for the caller (delegated login)
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getCustodyBUsersAuthToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/users/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Delegated registration: a challenge for the caller's new credential (a key credential or a passkey) to sign
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getCustodyBUsersChallenge"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/wallets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's custody-b wallets
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getCustodyBWallets"];
        put?: never;
        /**
         * Creates a wallet with the signed challenge; registered in the wallet registry as kind custody-b
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postCustodyBWallets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/custody-b/wallets/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user-action challenge for creating a wallet on a network (bound to that request); one wallet per network (409)
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getCustodyBWalletsChallenge"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's entities (API key or admin: all, or a user's with ?userId=)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEntities"];
        put?: never;
        /**
         * Create an entity; the user (or the userId an API key or admin names) becomes its owner with every permission
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postEntities"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities/{entityId}/users/{targetUserId}/permissions/{permission}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke one permission (needs manage_users; owner needs owner); idempotent; the last owner keeps owner (409)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        delete: operations["deleteEntitiesByEntityIdUsersByTargetUserIdPermissionsByPermission"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An entity (needs view)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEntitiesById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities/{id}/business-profile-a": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The business profile: status and review tasks (needs view)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEntitiesByIdBusinessProfileA"];
        put?: never;
        /**
         * Submit the entity to business-profile-a (needs manage_entity; one live submission at a time: 409)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postEntitiesByIdBusinessProfileA"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities/{id}/manual-payment-methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Payment methods (needs view; account numbers masked without manage_payment_methods)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEntitiesByIdManualPaymentMethods"];
        put?: never;
        /**
         * Add a manual payment method (needs manage_payment_methods)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postEntitiesByIdManualPaymentMethods"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities/{id}/manual-payment-methods/{methodId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A payment method (needs view; masked as in the list)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEntitiesByIdManualPaymentMethodsByMethodId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the label, archive or restore, or replace the details (needs manage_payment_methods)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        patch: operations["patchEntitiesByIdManualPaymentMethodsByMethodId"];
        trace?: never;
    };
    "/entities/{id}/metadata": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Replace the metadata (needs manage_entity)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        put: operations["putEntitiesByIdMetadata"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities/{id}/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Members and their permissions (needs view)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEntitiesByIdUsers"];
        put?: never;
        /**
         * Add a user (needs manage_users; granting owner needs owner); default permissions ["view"]
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postEntitiesByIdUsers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities/{id}/users/{targetUserId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member (needs manage_users, owner to remove an owner; anyone may leave); the last owner stays (409)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        delete: operations["deleteEntitiesByIdUsersByTargetUserId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/entities/{id}/users/{targetUserId}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Grant one permission (needs manage_users; owner needs owner); idempotent
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postEntitiesByIdUsersByTargetUserIdPermissions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/event-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's event endpoints, oldest first
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getEventEndpoints"];
        put?: never;
        /**
         * Add an event endpoint; the answer holds its signing secret, shown only here
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postEventEndpoints"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/event-endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One event endpoint
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getEventEndpointsById"];
        put?: never;
        post?: never;
        /**
         * Remove an endpoint and its queued deliveries
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        delete: operations["deleteEventEndpointsById"];
        options?: never;
        head?: never;
        /**
         * Change the URL, the type filter or the description; enable, or disable with a reason
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        patch: operations["patchEventEndpointsById"];
        trace?: never;
    };
    "/event-endpoints/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The endpoint's delivery log, newest event first (keyset paging with beforeId): attempts, last status code and error, next attempt
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getEventEndpointsByIdDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/event-endpoints/{id}/deliveries/{eventId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make one pending or failed delivery due now, with a fresh retry window
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postEventEndpointsByIdDeliveriesByEventIdRetry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/event-endpoints/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue a range of events (by time or by stream seq) for this endpoint again, with their original webhook-ids
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postEventEndpointsByIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/event-endpoints/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new signing secret (shown only here); the previous one also signs for 24 hours
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postEventEndpointsByIdRotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/event-endpoints/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed test event (endpoint.test) to this endpoint only, tried once; its outcome is in the delivery log
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postEventEndpointsByIdTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's events, oldest first, after a cursor (for consumers that pull instead of receiving webhooks)
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        get: operations["getEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/evm-eoas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's registered EVM addresses (the caller's; an API key or admin passes userId)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEvmEoas"];
        put?: never;
        /**
         * Register an EVM address (a key, or a contract wallet via EIP-1271 / ERC-6492) with a signed SIWE message
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postEvmEoas"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/evm-eoas/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A Sign-In with Ethereum (EIP-4361) challenge: single-use nonce (10 minutes) and the fields to sign
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEvmEoasChallenge"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/evm-vaults": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A vault by id or by an address of its wallets (a user: its own only; another's is 404)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getEvmVaults"];
        put?: never;
        /**
         * Create a custodial vault at custody-a with an EVM wallet (API key or admin: for body.userId; a user: for itself)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postEvmVaults"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's KYC attempts, newest first (the user, an admin or an API key)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getKyc"];
        put?: never;
        /**
         * Start an identity-verification session at idv-a for the calling user
         * @description Answers the kycId and the sessionUrl to send the person to. The body is optional.
         *
         *     Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postKyc"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/{kycId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Manually update a record's fields (audited; the status changes only through the review routes)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        patch: operations["patchKycByKycId"];
        trace?: never;
    };
    "/kyc/approve/{kycId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Approve a record (manual review); optional reason and level
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        put: operations["putKycApproveByKycId"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling user's KYC attempts, newest first (poll until status is approved)
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getKycAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/callback/idv-a/decision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * idv-a verification decision
         * @description Signed by the provider over the raw body under the tenant's secret (docs/providers.md).
         *
         *     No tenant header: the request names its tenant itself (path, state or signature).
         */
        post: operations["postKycCallbackIdvADecision"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/callback/idv-a/event": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * idv-a session event (started, submitted)
         * @description Signed by the provider over the raw body under the tenant's secret (docs/providers.md).
         *
         *     No tenant header: the request names its tenant itself (path, state or signature).
         */
        post: operations["postKycCallbackIdvAEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/callback/idv-b": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * idv-b verification result
         * @description Signed by the provider over the raw body under the tenant's secret (docs/providers.md). An unknown tenantId is a 401.
         *
         *     No tenant header: the request names its tenant itself (path, state or signature).
         */
        post: operations["postKycCallbackIdvB"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One KYC attempt with its history (kycId in the query, as the spec declares)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getKycCurrent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/current/{kycId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One KYC attempt with its history
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getKycCurrentByKycId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/identity/proof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Merkle proof of one identity field against the current root
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getKycIdentityProof"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/identity/root": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Identity root hash for on-chain verification (OpenZeppelin StandardMerkleTree), with earlier roots
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getKycIdentityRoot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/idv-a/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an identity-verification session at idv-a for the calling user
         * @description Answers the kycId and the sessionUrl to send the person to. The body is optional.
         *
         *     Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postKycIdvASession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/idv-b/regular-challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an idv-b verification without a wallet
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postKycIdvBRegularChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/idv-b/web3-challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an idv-b wallet verification: answers the challenge the wallet signs and the session URL
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postKycIdvBWeb3Challenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/kyc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Initiate a KYC registration for a user (idv-a session, or a manual record for review)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postKycKyc"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/kycs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every KYC record of the tenant, newest first (paged; filter by status, user, provider)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getKycKycs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/reject/{kycId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Decline a record (manual review); no body needed, a reason is stored when given
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        put: operations["putKycRejectByKycId"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/kyc/request-resubmission/{kycId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Ask the person to resubmit (manual review); no body needed, a reason is stored when given
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        put: operations["putKycRequestResubmissionByKycId"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodial-evm/transfers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's transfers, newest first
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getNonCustodialEvmTransfers"];
        put?: never;
        /**
         * Transfer from the caller's wallet through the named custody provider, with travel-rule data; idempotentId replays the first answer
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         *
         *     Idempotent: a key in the `Idempotency-Key` header or the `idempotentId` field is required; a retry with the same key replays the first answer (`Idempotent-Replayed: true`), the same key with another request is 409.
         */
        post: operations["postNonCustodialEvmTransfers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodial-evm/transfers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A transfer and its status (a user: its own; the travel-rule questionnaire only for the tenant's API key or an admin)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getNonCustodialEvmTransfersById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A single-use challenge (10 minutes) to sign for registering an XRPL wallet or secure account; ?address= binds it to that account
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getNonCustodianXrplChallenge"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/sign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Testing only (XRPL_TEST_SIGNING): sign a message with a key the service holds for the user
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postNonCustodianXrplSign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/sign-transaction": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Prepare a transaction of one of the user's wallets: autofilled, signed where the service may, with what the cold wallet must sign
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postNonCustodianXrplSignTransaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/tx-submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a signed blob of the user's wallet: verified locally, tracked, followed until validated or expired (Idempotency-Key optional: a retry replays the first answer; the same key with another body is 409)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         *
         *     Idempotent when a key is sent in the `Idempotency-Key` header: a retry replays the first answer (`Idempotent-Replayed: true`), the same key with another request is 409.
         */
        post: operations["postNonCustodianXrplTxSubmit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/wallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a cold wallet (the user's key, never sent): a signature over the challenge by its master or regular key
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postNonCustodianXrplWallet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/wallet/challenge/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A single-use challenge bound to a cold wallet address
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postNonCustodianXrplWalletChallengeByAddress"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/wallet/investor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create the user's investor account (service-generated; multi-signed by the signer and cold wallets once set up)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postNonCustodianXrplWalletInvestor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/wallet/signer-wallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create the user's signer (hot) wallet: its key is generated and sealed by the service
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postNonCustodianXrplWalletSignerWallet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/wallet/update/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change account settings (rippling, ...) by AccountSet signed by the service; multiSignature sets up the investor account (Idempotency-Key optional: a retry replays the first answer; the same key with another body is 409)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         *
         *     Idempotent when a key is sent in the `Idempotency-Key` header: a retry replays the first answer (`Idempotent-Replayed: true`), the same key with another request is 409.
         */
        put: operations["putNonCustodianXrplWalletUpdateByAddress"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/non-custodian-xrpl/wallets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The user's XRPL wallets by kind
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getNonCustodianXrplWallets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/custody-a/vaults/{vaultId}/fund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox only: fund a vault's EVM (ETH) or XRPL (XRP) wallet from the sandbox's faucet (API key, admin or the vault's owner)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postSandboxCustodyAVaultsByVaultIdFund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/custody-b/fund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox only: fund one of the caller's custody-b wallets from the sandbox's faucet (ETH or XRP by its chain)
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postSandboxCustodyBFund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signed-documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Signed documents: the caller's; an API key or admin may filter by userId and documentId
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getSignedDocuments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signed-documents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A signed document: signer, address, chain, the signed payload, signature and document hash (re-verifiable offline)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getSignedDocumentsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tenant-documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's documents (not deleted), newest first
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getTenantDocuments"];
        put?: never;
        /**
         * Create a tenant document for users to sign: title, metadata, and the file as contentBase64 or an https url
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        post: operations["postTenantDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tenant-documents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A tenant document (readable by the tenant's users, to sign it)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getTenantDocumentsById"];
        put?: never;
        post?: never;
        /**
         * Soft-delete: no longer listed or signable; signed copies stay verifiable
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        delete: operations["deleteTenantDocumentsById"];
        options?: never;
        head?: never;
        /**
         * Change title and metadata (the content never changes)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        patch: operations["patchTenantDocumentsById"];
        trace?: never;
    };
    "/tenant-documents/{id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A tenant document's content
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getTenantDocumentsByIdContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tenant-documents/{id}/sign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The message to sign: EIP-712 typed data and EIP-191 text (evm) or the canonical message and its hex (xrpl); single-use nonce, 15 minutes
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getTenantDocumentsByIdSign"];
        put?: never;
        /**
         * Sign with an EVM wallet: the signature of the typed data (eip712, default) or of the text (eip191); EIP-1271 and ERC-6492 wallets verify through the chain
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postTenantDocumentsByIdSign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tenant-documents/{id}/sign/xrpl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign with an XRPL wallet: the signature of messageHex and the public key (the address's master key or its regular key)
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postTenantDocumentsByIdSignXrpl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user-documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's documents, newest first (the caller's; an API key or admin passes userId); filter by type
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getUserDocuments"];
        put?: never;
        /**
         * Upload a user document: multipart/form-data with one file part `file` (20 MiB; PDF, PNG, JPEG, WebP or HEIC by content) and fields type, name, userId
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postUserDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user-documents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user document: metadata, and contentUrl to download it
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getUserDocumentsById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user-documents/{id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user document's content (same access as its record)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getUserDocumentsByIdContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user-documents/from-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a user document from an https URL (public addresses only, at most 3 redirects, 20 MiB, time-limited)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postUserDocumentsFromUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users (paged; exact-match filters)
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getUsers"];
        put?: never;
        /**
         * Create a user (no password)
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        post: operations["postUsers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Full profile of a user
         * @description Who may call: an API key of the tenant (`x-api-key`), or an admin’s access token; with `x-tenant-id`.
         */
        get: operations["getUsersById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Edit a user's profile
         * @description Who may call: an API key of the tenant (`x-api-key`); with `x-tenant-id`.
         */
        patch: operations["patchUsersById"];
        trace?: never;
    };
    "/users/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling user
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getUsersMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Edit the calling user's profile
         * @description Who may call: a user’s access token (any role); with `x-tenant-id`.
         */
        patch: operations["patchUsersMe"];
        trace?: never;
    };
    "/users/wallet-addresses/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's wallet addresses (API key, the user, or an admin)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getUsersWalletAddressesByUserId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/xrpl-secure-accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The user's secure XRPL accounts (paged)
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getXrplSecureAccounts"];
        put?: never;
        /**
         * Register an existing multi-signed (SignerList) or regular-key account, proven by signatures over a challenge
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        post: operations["postXrplSecureAccounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/xrpl-secure-accounts/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One secure XRPL account of the user
         * @description Who may call: an API key of the tenant (`x-api-key`), or a user’s access token (any role); with `x-tenant-id`.
         */
        get: operations["getXrplSecureAccountsByAddress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "accreditation.decided": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * accreditation.decided event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventAccreditationDecided"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "accreditation.submitted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * accreditation.submitted event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventAccreditationSubmitted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "bank_link.item_linked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * bank_link.item_linked event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventBankLinkItemLinked"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "bank_link.item_removed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * bank_link.item_removed event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventBankLinkItemRemoved"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "bank_link.item_updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * bank_link.item_updated event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventBankLinkItemUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "bank_link.originator_updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * bank_link.originator_updated event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventBankLinkOriginatorUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "custody.vault_created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * custody.vault_created event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventCustodyVaultCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "document.signed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * document.signed event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventDocumentSigned"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "document.uploaded": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * document.uploaded event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventDocumentUploaded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "endpoint.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * endpoint.test event
         * @description Sent on request (POST /event-endpoints/{id}/test) to that one endpoint only, signed like every event; tried once (retry it by id). No type filter names it and GET /events never lists it.
         */
        post: operations["eventEndpointTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.business_profile_submitted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.business_profile_submitted event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityBusinessProfileSubmitted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.business_profile_updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.business_profile_updated event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityBusinessProfileUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.created event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.member_added": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.member_added event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityMemberAdded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.member_removed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.member_removed event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityMemberRemoved"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.payment_method_added": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.payment_method_added event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityPaymentMethodAdded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.payment_method_updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.payment_method_updated event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityPaymentMethodUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.permission_granted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.permission_granted event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityPermissionGranted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.permission_revoked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.permission_revoked event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityPermissionRevoked"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "entity.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * entity.updated event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventEntityUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.abandoned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.abandoned event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycAbandoned"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.approved": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.approved event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycApproved"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.created event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.declined": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.declined event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycDeclined"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.expired event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycExpired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.resubmission_requested": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.resubmission_requested event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycResubmissionRequested"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.review": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.review event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycReview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.started event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycStarted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.submitted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.submitted event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycSubmitted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "kyc.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * kyc.updated event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventKycUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "transfer.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * transfer.completed event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventTransferCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "transfer.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * transfer.failed event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventTransferFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "transfer.submitted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * transfer.submitted event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventTransferSubmitted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "user.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * user.created event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventUserCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "user.email_verified": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * user.email_verified event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventUserEmailVerified"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "user.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * user.updated event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventUserUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "wallet.registered": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * wallet.registered event
         * @description Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.
         */
        post: operations["eventWalletRegistered"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Accreditation: {
            /** Format: date-time */
            createdAt: string;
            decidedAt: string | null;
            documentIds: string[];
            history: {
                actor: {
                    id: string | null;
                    type: string;
                };
                /** Format: date-time */
                at: string;
                from: string | null;
                reason: string | null;
                to: string;
            }[];
            /** Format: uuid */
            id: string;
            notes: string | null;
            reason: string | null;
            /** @enum {unknown} */
            status: "pending" | "approved" | "rejected";
            /** @enum {unknown} */
            type: "income" | "net_worth" | "professional_certification" | "entity" | "knowledgeable_employee" | "other";
            /** Format: date-time */
            updatedAt: string;
            /** Format: uuid */
            userId: string;
        };
        /** @description The data of a accreditation.decided event */
        AccreditationDecidedEventData: {
            accreditationId: string;
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            decision: string;
            reason: string | null;
            userId: string;
        };
        /** @description The data of a accreditation.submitted event */
        AccreditationSubmittedEventData: {
            accreditationId: string;
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            type: string;
            userId: string;
        };
        AdminTransfer: {
            amount: string;
            assetType: string;
            /** Format: date-time */
            createdAt: string;
            deductFeeFromAmountIfSameType: boolean;
            destinationId: string;
            destinationType: string;
            failureReason: string | null;
            hash: string | null;
            hasQuestionnaire: boolean;
            /** @description Recorded statuses, oldest first (transfers made before the history was kept have none) */
            history: {
                actor: {
                    id: string | null;
                    type: string;
                };
                /** Format: date-time */
                at: string;
                hash: string | null;
                status: string;
            }[];
            /** Format: uuid */
            id: string;
            idempotentId: string;
            provider: string;
            providerTransferId: string;
            sourceId: string;
            sourceType: string;
            /** @description QUEUED, IN_PROGRESS, COMPLETED or FAILED */
            status: string;
            transferMemo: string | null;
            /** Format: date-time */
            updatedAt: string;
            /** Format: uuid */
            userId: string;
        };
        BankLinkItem: {
            accounts: {
                accountId: string;
                mask: string | null;
                name: string;
                subtype: string | null;
                type: string;
            }[];
            /** Format: date-time */
            createdAt: string;
            errorCode: string | null;
            institutionId: string | null;
            institutionName: string | null;
            /** Format: uuid */
            itemId: string;
            /** @enum {unknown} */
            status: "active" | "login_required" | "pending_expiration" | "revoked";
            /** Format: date-time */
            updatedAt: string;
        };
        /** @description The data of a bank_link.item_linked event */
        BankLinkItemLinkedEventData: {
            accounts: number;
            institutionId: string | null;
            itemId: string;
            userId: string | null;
        };
        /** @description The data of a bank_link.item_removed event */
        BankLinkItemRemovedEventData: {
            itemId: string;
            userId: string | null;
        };
        /** @description The data of a bank_link.item_updated event */
        BankLinkItemUpdatedEventData: {
            errorCode?: string | null;
            itemId: string;
            status: string;
            userId: string | null;
            webhookCode: string;
        };
        /** @description The data of a bank_link.originator_updated event */
        BankLinkOriginatorUpdatedEventData: {
            diligenceStatus: string;
            originatorId: string;
        };
        BusinessProfile: {
            /** Format: date-time */
            createdAt: string;
            /** Format: uuid */
            entityId: string;
            failure: string | null;
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            provider: "business-profile-a";
            providerBusinessId: string | null;
            /** @enum {unknown} */
            status: "submitting" | "pending" | "in_review" | "approved" | "rejected" | "failed";
            tasks: {
                category: string;
                key: string;
                label: string;
                message: string;
                /** @enum {unknown} */
                status: "success" | "failure" | "warning" | "pending";
            }[];
            /** @description Masked: the last four digits only */
            tin: string;
            /** Format: date-time */
            updatedAt: string;
        };
        Credentials: {
            /**
             * Format: email
             * @description Email address; compared case-insensitively
             */
            email: string;
            /** @description 8 to 128 characters, not a common password */
            password: string;
        };
        CustodyBChallenge: {
            allowCredentials: {
                key: {
                    id: string;
                    /** @enum {string} */
                    type: "public-key";
                }[];
                webauthn: {
                    id: string;
                    /** @enum {string} */
                    type: "public-key";
                }[];
            };
            /** @description Sign it with the user's credential (client data type key.get, or a WebAuthn get) */
            challenge: string;
            challengeIdentifier: string;
            /** Format: date-time */
            expiresAt: string;
            /** @description The provider request the challenge is bound to (answered for the record; the complete route rebuilds it from its own body) */
            request: {
                body: unknown;
                method: string;
                path: string;
            };
            supportedCredentialKinds: {
                factor: string;
                kind: string;
                requiresSecondFactor: boolean;
            }[];
            userVerification: string;
        };
        CustodyBSignature: {
            address: string;
            signature: {
                /** @description r || s || v (65 bytes, hex): what viem verifyMessage / verifyTypedData take */
                encoded: string;
                r: string;
                recid: number;
                s: string;
            };
            signatureId: string;
            /** Format: uuid */
            walletId: string;
        };
        CustodyBSignedChallenge: {
            /** @description As the challenge route answered it */
            challengeIdentifier: string;
            firstFactor: {
                credentialAssertion: {
                    /** @description Base64url JSON {type: "key.get", challenge, origin, crossOrigin} */
                    clientData: string;
                    /** @description The credential id */
                    credId: string;
                    /** @description Over the client data */
                    signature: string;
                };
                /** @enum {string} */
                kind: "Key";
            } | {
                credentialAssertion: {
                    /** @description authenticatorData */
                    authenticatorData: string;
                    /** @description clientDataJSON */
                    clientData: string;
                    /** @description The credential id */
                    credId: string;
                    /** @description The assertion signature */
                    signature: string;
                    /** @description userHandle */
                    userHandle?: string;
                };
                /** @enum {string} */
                kind: "Fido2";
            };
        };
        CustodyTransaction: {
            contract: string | null;
            /** Format: date-time */
            createdAt: string;
            destinationAddress: string | null;
            failureReason: string | null;
            hash: string | null;
            qty: string | null;
            /** @description REQUESTED, APPROVED, COMPILED, SIGNED, PUBLISHED, CONFIRMATION_PENDING, CONFIRMED, REJECTED or FAILED */
            status: string;
            symbol: string | null;
            /** Format: uuid */
            transactionId: string;
            /** @description TRANSFER or ACCOUNT_SET */
            type: string;
            /** Format: date-time */
            updatedAt: string;
            /** Format: uuid */
            vaultId: string;
            /** Format: uuid */
            walletId: string;
        };
        /** @description The data of a custody.vault_created event */
        CustodyVaultCreatedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            provider: string;
            userId: string;
            vaultId: string;
            walletIds: string[];
        };
        /** @description The data of a document.signed event */
        DocumentSignedEventData: {
            address: string;
            chainType: string;
            documentId: string;
            documentSha256: string;
            scheme: string;
            signedDocumentId: string;
            userId: string;
        };
        /** @description The data of a document.uploaded event */
        DocumentUploadedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            documentId: string;
            /** @constant */
            kind: "user";
            mediaType: string;
            sha256: string;
            size: number;
            type: string;
            userId: string;
        } | {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            documentId: string;
            /** @constant */
            kind: "tenant";
            mediaType: string;
            sha256: string;
            size: number;
        };
        Eip712TypedData: {
            domain: {
                chainId?: number;
                name?: string;
                salt?: string;
                /** @description The wallet's EVM address (any case) */
                verifyingContract?: string;
                version?: string;
            };
            message: {
                [key: string]: unknown;
            };
            primaryType: string;
            /** @description Type definitions (EIP712Domain may be left out) */
            types: {
                [key: string]: {
                    name: string;
                    type: string;
                }[];
            };
        };
        EmailVerification: {
            /** @enum {boolean} */
            emailVerified: true;
            message: string;
        };
        /** @description The data of a endpoint.test event */
        EndpointTestEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            endpointId: string;
            message: string;
        };
        Entity: {
            address: components["schemas"]["PostalAddress"];
            /** Format: date-time */
            createdAt: string;
            /** Format: uuid */
            id: string;
            jurisdiction: string;
            legalName: string;
            lei: string | null;
            metadata: {
                [key: string]: unknown;
            };
            /** @description The caller's effective permissions on the entity (every one for an API key or admin) */
            permissions: ("owner" | "view" | "manage_entity" | "manage_users" | "manage_payment_methods" | "invest" | "sign_documents")[];
            registrationNumber: string;
            /** @enum {unknown} */
            type: "company" | "fund" | "trust" | "partnership" | "other";
            /** Format: date-time */
            updatedAt: string;
        };
        /** @description The data of a entity.business_profile_submitted event */
        EntityBusinessProfileSubmittedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            entityId: string;
            profileId: string;
            providerBusinessId: string;
            status: string;
        };
        /** @description The data of a entity.business_profile_updated event */
        EntityBusinessProfileUpdatedEventData: {
            entityId: string;
            eventId: string;
            from: string;
            profileId: string;
            providerBusinessId: string;
            status: string;
        };
        /** @description The data of a entity.created event */
        EntityCreatedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            entityId: string;
            ownerUserId: string;
            type: string;
        };
        EntityMember: {
            /** Format: date-time */
            addedAt: string;
            email: string;
            fullName: string | null;
            permissions: ("owner" | "view" | "manage_entity" | "manage_users" | "manage_payment_methods" | "invest" | "sign_documents")[];
            /** Format: uuid */
            userId: string;
        };
        /** @description The data of a entity.member_added event */
        EntityMemberAddedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            entityId: string;
            permission?: string;
            permissions?: string[];
            userId: string;
        };
        /** @description The data of a entity.member_removed event */
        EntityMemberRemovedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            entityId: string;
            permission?: string;
            permissions?: string[];
            userId: string;
        };
        /** @description The data of a entity.payment_method_added event */
        EntityPaymentMethodAddedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            archived: boolean;
            changed: string[];
            entityId: string;
            kind: string;
            methodId: string;
        };
        /** @description The data of a entity.payment_method_updated event */
        EntityPaymentMethodUpdatedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            archived: boolean;
            changed: string[];
            entityId: string;
            kind: string;
            methodId: string;
        };
        /** @description The data of a entity.permission_granted event */
        EntityPermissionGrantedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            entityId: string;
            permission?: string;
            permissions?: string[];
            userId: string;
        };
        /** @description The data of a entity.permission_revoked event */
        EntityPermissionRevokedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            entityId: string;
            permission?: string;
            permissions?: string[];
            userId: string;
        };
        /** @description The data of a entity.updated event */
        EntityUpdatedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            entityId: string;
            fields: string[];
        };
        /** @description Error */
        ErrorBody: {
            /** @description Stable machine-readable error code */
            code: string;
            error: string;
            message: string;
            statusCode: number;
        };
        EventEndpoint: {
            /** Format: date-time */
            createdAt: string;
            description: string | null;
            disabledAt: string | null;
            disabledReason: string | null;
            enabled: boolean;
            /** Format: uuid */
            id: string;
            types: string[];
            /** Format: date-time */
            updatedAt: string;
            url: string;
        };
        /** @description The data of a kyc.abandoned event */
        KycAbandonedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        /** @description The data of a kyc.approved event */
        KycApprovedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        /** @description The data of a kyc.created event */
        KycCreatedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        /** @description The data of a kyc.declined event */
        KycDeclinedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        /** @description The data of a kyc.expired event */
        KycExpiredEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        KycList: {
            data: components["schemas"]["KycSummary"][];
            total: number;
        };
        KycRecord: {
            country: string | null;
            /** Format: date-time */
            createdAt: string;
            dateOfBirth: string | null;
            decidedAt: string | null;
            documentType: string | null;
            /** Format: date-time */
            expiresAt: string;
            firstName: string | null;
            /** @description session (idv-a), web3 or regular (idv-b), manual */
            flow: string;
            history: {
                /** @enum {unknown} */
                action: "transition" | "update";
                actor: {
                    id: string | null;
                    type: string;
                };
                /** Format: date-time */
                at: string;
                changes: {
                    [key: string]: unknown;
                } | null;
                from: string | null;
                reason: string | null;
                to: string | null;
            }[];
            /** Format: uuid */
            kycId: string;
            lastName: string | null;
            level: string;
            /** @enum {unknown} */
            provider: "idv-a" | "idv-b" | "manual";
            reason: string | null;
            sessionUrl: string | null;
            /** @enum {unknown} */
            status: "created" | "started" | "submitted" | "review" | "approved" | "declined" | "resubmission_requested" | "expired" | "abandoned";
            /** Format: date-time */
            updatedAt: string;
            /** Format: uuid */
            userId: string;
            walletAddress: string | null;
            walletChain: string | null;
            walletVerified: boolean;
        };
        /** @description The data of a kyc.resubmission_requested event */
        KycResubmissionRequestedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        /** @description The data of a kyc.review event */
        KycReviewEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        KycSession: {
            /** Format: date-time */
            expiresAt: string;
            /** Format: uuid */
            kycId: string;
            provider: string;
            sessionUrl: string | null;
            /** @enum {unknown} */
            status: "created" | "started" | "submitted" | "review" | "approved" | "declined" | "resubmission_requested" | "expired" | "abandoned";
        };
        /** @description The data of a kyc.started event */
        KycStartedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        /** @description The data of a kyc.submitted event */
        KycSubmittedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            from: string | null;
            kycId: string;
            provider: string;
            reason: string | null;
            to: string;
            userId: string;
        };
        KycSummary: {
            country: string | null;
            /** Format: date-time */
            createdAt: string;
            dateOfBirth: string | null;
            decidedAt: string | null;
            documentType: string | null;
            /** Format: date-time */
            expiresAt: string;
            firstName: string | null;
            /** @description session (idv-a), web3 or regular (idv-b), manual */
            flow: string;
            /** Format: uuid */
            kycId: string;
            lastName: string | null;
            level: string;
            /** @enum {unknown} */
            provider: "idv-a" | "idv-b" | "manual";
            reason: string | null;
            sessionUrl: string | null;
            /** @enum {unknown} */
            status: "created" | "started" | "submitted" | "review" | "approved" | "declined" | "resubmission_requested" | "expired" | "abandoned";
            /** Format: date-time */
            updatedAt: string;
            /** Format: uuid */
            userId: string;
            walletAddress: string | null;
            walletChain: string | null;
            walletVerified: boolean;
        };
        /** @description The data of a kyc.updated event */
        KycUpdatedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            fields: string[];
            kycId: string;
            reason: string | null;
            userId: string;
        };
        LinkToken: {
            /** Format: date-time */
            expiration: string;
            linkToken: string;
            linkUrl: string | null;
        };
        Message: {
            message: string;
        };
        Originator: {
            companyName: string | null;
            /** @enum {unknown} */
            diligenceStatus: "not_submitted" | "submitted" | "under_review" | "approved" | "denied" | "more_information_required";
            /** @description The originator's client id at the provider */
            id: string;
        };
        PaymentMethod: {
            archived: boolean;
            /** Format: date-time */
            createdAt: string;
            currency: string;
            details: {
                [key: string]: string;
            };
            /** Format: uuid */
            entityId: string;
            /** Format: uuid */
            id: string;
            /** @enum {unknown} */
            kind: "bank_wire" | "ach" | "crypto";
            label: string | null;
            /** @description True when iban / accountNumber show only their last four characters (callers without manage_payment_methods) */
            masked: boolean;
            /** Format: date-time */
            updatedAt: string;
        };
        PostalAddress: {
            city: string;
            /** @description Country (ISO 3166-1 alpha-2) */
            country: string;
            line1: string;
            line2?: string;
            postalCode?: string;
            /** @description State, province or region */
            region?: string;
        };
        ProviderCallbackOutcome: {
            applied: boolean;
            /** @description 'applied', 'replay', or 'ignored: <why>' */
            outcome: string;
            received: boolean;
            status?: string;
        };
        SignedDocument: {
            address: string;
            /** @enum {unknown} */
            chainType: "evm" | "xrpl";
            /** Format: uuid */
            documentId: string;
            /** @description SHA-256 of the content, hex */
            documentSha256: string;
            /** Format: uuid */
            id: string;
            nonce: string;
            /** @description Exactly what was signed (typed data or message text and hex) */
            payload: {
                [key: string]: unknown;
            };
            publicKey: string | null;
            /** @description eip712, eip191 or xrpl-message */
            scheme: string;
            signature: string;
            /** Format: date-time */
            signedAt: string;
            /** @description evm: eoa, contract (EIP-1271) or counterfactual (ERC-6492); xrpl: master or regular key */
            signerKind: string;
            /** Format: uuid */
            userId: string;
        };
        TenantDocument: {
            contentUrl: string;
            /** Format: date-time */
            createdAt: string;
            deletedAt: string | null;
            /** Format: uuid */
            id: string;
            /** @enum {unknown} */
            mediaType: "application/pdf" | "image/png" | "image/jpeg" | "image/webp" | "image/heic";
            metadata: {
                [key: string]: unknown;
            };
            /** @description SHA-256 of the content, hex */
            sha256: string;
            /** @description Signed copies recorded so far */
            signatures: number;
            size: number;
            source: string;
            title: string;
            /** Format: date-time */
            updatedAt: string;
        };
        TokenPair: {
            /** @description EdDSA JWT, 15 minutes */
            accessToken: string;
            /** Format: date-time */
            accessTokenExpiresAt: string;
            /** @description Seconds until the access token expires */
            expiresIn: number;
            /** @description Opaque, 7 days, rotated on every refresh */
            refreshToken: string;
            /** Format: date-time */
            refreshTokenExpiresAt: string;
            /** @enum {string} */
            tokenType: "Bearer";
        };
        Transfer: {
            amount: string;
            assetType: string;
            /** Format: date-time */
            createdAt: string;
            deductFeeFromAmountIfSameType: boolean;
            destinationId: string;
            destinationType: string;
            failureReason: string | null;
            hash: string | null;
            hasQuestionnaire: boolean;
            /** Format: uuid */
            id: string;
            idempotentId: string;
            provider: string;
            providerTransferId: string;
            sourceId: string;
            sourceType: string;
            /** @description QUEUED, IN_PROGRESS, COMPLETED or FAILED */
            status: string;
            transferAmlQuestionnaire?: components["schemas"]["TravelRuleQuestionnaire"] | null;
            transferMemo: string | null;
            /** Format: date-time */
            updatedAt: string;
            /** Format: uuid */
            userId: string;
        };
        /** @description The data of a transfer.completed event */
        TransferCompletedEventData: {
            account: string;
            engineResult: string | null;
            hash: string;
            /** @constant */
            kind: "xrpl-submission";
            ledgerIndex: number | null;
            network: string;
            result: string | null;
            sequence: number;
            status: string;
            submissionId: string;
            transactionType: string;
            userId: string | null;
        } | {
            hash: string | null;
            /** @constant */
            kind: "custody-a.transaction";
            status: string;
            transactionId: string;
            vaultId: string;
            walletId: string;
        } | {
            hash: string | null;
            /** @constant */
            kind: "non-custodial-evm";
            provider: string;
            status: string;
            transferId: string;
            userId: string;
        };
        /** @description The data of a transfer.failed event */
        TransferFailedEventData: {
            account: string;
            engineResult: string | null;
            hash: string;
            /** @constant */
            kind: "xrpl-submission";
            ledgerIndex: number | null;
            network: string;
            result: string | null;
            sequence: number;
            status: string;
            submissionId: string;
            transactionType: string;
            userId: string | null;
        } | {
            hash: string | null;
            /** @constant */
            kind: "custody-a.transaction";
            status: string;
            transactionId: string;
            vaultId: string;
            walletId: string;
        } | {
            hash: string | null;
            /** @constant */
            kind: "non-custodial-evm";
            provider: string;
            status: string;
            transferId: string;
            userId: string;
        };
        /** @description The data of a transfer.submitted event */
        TransferSubmittedEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            destinationAddress: string | null;
            /** @constant */
            kind: "custody-a.transaction";
            qty: string | null;
            status: string;
            symbol: string | null;
            transactionId: string;
            type: string;
            vaultId: string;
            walletId: string;
        } | {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            amount: string;
            assetType: string;
            destinationId: string;
            /** @constant */
            kind: "non-custodial-evm";
            provider: string;
            status: string;
            transferId: string;
            userId: string;
        } | {
            account: string;
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            hash: string;
            /** @constant */
            kind: "xrpl-submission";
            network: string;
            sequence: number;
            status: string;
            submissionId: string;
            transactionType: string;
            userId: string | null;
        } | {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            address: string;
            /** @constant */
            kind: "custody-b.broadcast";
            network: string;
            status: string;
            transactionId: string;
            txHash: string | null;
            userId: string;
            walletId: string;
        };
        /** @description Travel-rule data. Required fields depend on destinationType (see each field). */
        TravelRuleQuestionnaire: {
            /**
             * @description Where the funds go: an account at a financial institution, or a wallet whose keys the recipient holds. Required for both destination types. One of: FINANCIAL_INSTITUTION, SELFHOSTED_WALLET.
             * @example FINANCIAL_INSTITUTION
             */
            destinationType?: string;
            /** @description The country of the receiving financial institution (ISO 3166-1 alpha-2). Required when destinationType is FINANCIAL_INSTITUTION. */
            institutionCountry?: string;
            /** @description The name of the receiving financial institution. Required when destinationType is FINANCIAL_INSTITUTION. */
            institutionName?: string;
            /** @description The originator's city. */
            originatorCity?: string;
            /** @description The originator's country (ISO 3166-1 alpha-2). Required for both destination types. */
            originatorCountry?: string;
            /** @description The originator's name. Required for both destination types. */
            originatorName?: string;
            /** @description The originator's postal code. */
            originatorPostalCode?: string;
            /** @description The originator's state or province. */
            originatorStateProvince?: string;
            /** @description The originator's street address. */
            originatorStreetAddress?: string;
            /**
             * @description Who sends the funds. Required for both destination types. One of: MY_ORGANIZATION, PERSON.
             * @example MY_ORGANIZATION
             */
            originatorType?: string;
            /**
             * @description Why the funds are sent. Required for both destination types. One of: TRADING_SETTLEMENT, INVESTMENT, PAYMENT, OTHER.
             * @example TRADING_SETTLEMENT
             */
            purpose?: string;
            /** @description The recipient's city. */
            recipientCity?: string;
            /** @description The recipient's country (ISO 3166-1 alpha-2). */
            recipientCountry?: string;
            /** @description The recipient's first name (a person). */
            recipientFirstName?: string;
            /** @description The recipient's full name. */
            recipientFullName?: string;
            /** @description The recipient's last name (a person). */
            recipientLastName?: string;
            /** @description The recipient's postal code. */
            recipientPostalCode?: string;
            /** @description The recipient's state or province. */
            recipientStateProvince?: string;
            /** @description The recipient's street address. */
            recipientStreetAddress?: string;
            /**
             * @description Who receives the funds. Required when destinationType is FINANCIAL_INSTITUTION. One of: DESTINATION_INSTITUTION, MY_ORGANIZATION, PERSON.
             * @example DESTINATION_INSTITUTION
             */
            recipientType?: string;
            /** @description For a self-hosted wallet: a free description of it (optional). */
            selfhostedDescription?: string;
        };
        TwoFactorChallenge: {
            /** @description Single use, 5 minutes; send it with the emailed code (or the authenticator app code) to POST /auth/2fa/verify */
            challengeToken: string;
            /**
             * @description Present when the code comes from an authenticator app (TOTP); absent: the code was emailed
             * @enum {string}
             */
            method?: "totp";
            /** @enum {boolean} */
            twoFactorRequired: true;
        };
        TwoFactorStatus: {
            enabled: boolean;
            enabledAt: string | null;
            method: "email" | "totp" | null;
            /** @description TOTP only: unused recovery codes */
            recoveryCodesRemaining?: number;
        };
        User: {
            /** Format: date-time */
            createdAt: string;
            email: string;
            emailVerified: boolean;
            evmEoa: string | null;
            fullName: string | null;
            /** Format: uuid */
            id: string;
            kycStatus: string | null;
            phone: string | null;
            role: "user" | "admin";
            /** Format: date-time */
            updatedAt: string;
            xrplSecureAccountAddress: string | null;
        };
        /** @description The data of a user.created event */
        UserCreatedEventData: {
            email: string;
            userId: string;
        };
        UserDocument: {
            /** @description Download route for the content; send the same credentials */
            contentUrl: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: uuid */
            id: string;
            /** @enum {unknown} */
            mediaType: "application/pdf" | "image/png" | "image/jpeg" | "image/webp" | "image/heic";
            name: string;
            /** @description SHA-256 of the content, hex */
            sha256: string;
            size: number;
            /** @description `upload`, or the URL the document was imported from */
            source: string;
            /** @enum {unknown} */
            type: "identity" | "proof_of_address" | "accreditation" | "tax" | "bank_statement" | "other";
            /** Format: uuid */
            userId: string;
        };
        /** @description The data of a user.email_verified event */
        UserEmailVerifiedEventData: {
            email: string;
            userId: string;
        };
        UserList: {
            data: components["schemas"]["User"][];
            total: number;
        };
        UserProfile: {
            /** Format: date-time */
            createdAt: string;
            email: string;
            emailVerified: boolean;
            evmEoa: string | null;
            fullName: string | null;
            /** Format: uuid */
            id: string;
            kycStatus: string | null;
            phone: string | null;
            role: "user" | "admin";
            /** Format: date-time */
            updatedAt: string;
            walletAddresses: components["schemas"]["WalletAddresses"];
            xrplSecureAccountAddress: string | null;
        };
        UserUpdate: {
            fullName?: string | null;
            phone?: string | null;
        };
        /** @description The data of a user.updated event */
        UserUpdatedEventData: {
            fields: string[];
            userId: string;
        };
        Vault: {
            /** @description The EVM address of the vault */
            address: string;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: uuid
             * @description The vaultId the custody-a routes take
             */
            id: string;
            name: string;
            provider: string;
            /** Format: uuid */
            userId: string;
            wallets: components["schemas"]["Wallet"][];
        };
        Wallet: {
            /** @description EIP-55 checksummed for EVM; the classic address for XRPL */
            address: string;
            /** @enum {unknown} */
            chain: "evm" | "xrpl";
            chainId: number | null;
            /** Format: date-time */
            createdAt: string;
            details: {
                [key: string]: unknown;
            };
            /** @enum {unknown} */
            kind: "evm-eoa" | "evm-vault" | "xrpl-secure" | "xrpl-investor" | "xrpl-signer" | "xrpl-cold" | "custody-b" | "custody-a";
            /** @description EVM: the chain id in decimal; XRPL: the network id */
            network: string;
            /** Format: date-time */
            updatedAt: string;
            /** Format: uuid */
            userId: string;
            vaultId: string | null;
            /**
             * Format: uuid
             * @description The id custody and transfer routes take as walletId
             */
            walletId: string;
        };
        WalletAddresses: {
            evm: string | null;
            evmCompatible: string | null;
            xrpl: string | null;
        };
        WalletList: {
            data: components["schemas"]["Wallet"][];
            total: number;
        };
        /** @description The data of a wallet.registered event */
        WalletRegisteredEventData: {
            actor: {
                id: string | null;
                type: "user" | "apiKey" | "provider" | "system";
            };
            address: string;
            chain: string;
            kind: string;
            network: string | null;
            userId: string;
            vaultId: string | null;
            walletId: string;
        };
        XrplAccount: {
            balanceDrops?: string;
            /** @description False until the account is funded */
            exists: boolean;
            flags?: {
                [key: string]: boolean;
            };
            ledgerIndex?: number;
            regularKey?: string | null;
            sequence?: number;
            signerList?: {
                quorum: number;
                signers: {
                    account: string;
                    weight: number;
                }[];
            } | null;
        };
        XrplChallenge: {
            address: string | null;
            /** @description Single use, 10 minutes, bound to the user (and to `address` when set) */
            challenge: string;
            /** Format: date-time */
            expiresAt: string;
            /** Format: date-time */
            issuedAt: string;
            /** @description The exact text to sign (its UTF-8 bytes) */
            message: string;
        };
        XrplSubmission: {
            account: string;
            engineResult: string | null;
            hash: string;
            lastLedgerSequence: number;
            ledgerIndex: number | null;
            result: string | null;
            sequence: number;
            /** @enum {unknown} */
            status: "submitted" | "validated" | "failed" | "expired";
            /** Format: uuid */
            submissionId: string;
            transactionType: string;
            validated: boolean;
        };
        XrplWallet: {
            account: components["schemas"]["XrplAccount"];
            /** @description EIP-55 checksummed for EVM; the classic address for XRPL */
            address: string;
            /** @enum {unknown} */
            chain: "evm" | "xrpl";
            chainId: number | null;
            /** Format: date-time */
            createdAt: string;
            details: {
                [key: string]: unknown;
            };
            /** @enum {unknown} */
            kind: "evm-eoa" | "evm-vault" | "xrpl-secure" | "xrpl-investor" | "xrpl-signer" | "xrpl-cold" | "custody-b" | "custody-a";
            /** @description EVM: the chain id in decimal; XRPL: the network id */
            network: string;
            /** Format: date-time */
            updatedAt: string;
            /** Format: uuid */
            userId: string;
            vaultId: string | null;
            /**
             * Format: uuid
             * @description The id custody and transfer routes take as walletId
             */
            walletId: string;
        };
    };
    responses: {
        /** @description Bad request: validation failed (message names every bad field), or a rule of the operation refused the input */
        Error400: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 400,
                 *       "error": "Bad Request",
                 *       "message": "The params, query or body do not match the schema of the route",
                 *       "code": "VALIDATION_FAILED"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "ACCOUNT_SET_NOT_XRPL" | "ACCREDITATION_DOCUMENT_UNKNOWN" | "ADDRESS_INVALID" | "AMOUNT_INVALID" | "API_KEY_EXPIRY_INVALID" | "API_KEY_SCOPES_INVALID" | "BAD_REQUEST" | "BANK_LINK_PUBLIC_TOKEN_INVALID" | "BANK_LINK_SANDBOX_CREDENTIALS_INVALID" | "BUSINESS_PROFILE_TIN_INVALID" | "CHALLENGE_EXPIRED" | "CHALLENGE_MISMATCH" | "CHALLENGE_UNKNOWN" | "CHALLENGE_USED" | "CODE_INVALID" | "CONTRACT_INVALID" | "CUSTODY_B_PROVIDER_REJECTED" | "CUSTODY_B_REGISTRATION_CHALLENGE_MISSING" | "CUSTODY_B_TYPED_DATA_INVALID" | "DOCUMENT_BASE64_INVALID" | "DOCUMENT_CONTENT_REQUIRED" | "DOCUMENT_EMPTY" | "DOCUMENT_FORM_INVALID" | "DOCUMENT_PDF_ENCRYPTED" | "DOCUMENT_PDF_MALFORMED" | "DOCUMENT_URL_FETCH_FAILED" | "DOCUMENT_URL_REFUSED" | "DOCUMENT_URL_TIMEOUT" | "EMPTY_JSON_BODY" | "ENTITY_COUNTRY_INVALID" | "ENTITY_LEI_INVALID" | "ENTITY_METADATA_TOO_LARGE" | "ENTITY_PERMISSION_UNKNOWN" | "ENUM_VALUE_UNKNOWN" | "EVENTS_CURSOR_UNKNOWN" | "EVENT_ENDPOINT_UPDATE_EMPTY" | "EVENT_ENDPOINT_URL_CREDENTIALS" | "EVENT_ENDPOINT_URL_INVALID" | "EVENT_ENDPOINT_URL_PRIVATE_ADDRESS" | "EVENT_ENDPOINT_URL_SCHEME" | "EVENT_ENDPOINT_URL_UNRESOLVABLE" | "EVENT_REPLAY_RANGE_INVALID" | "FAUCET_AMOUNT_INVALID" | "FAUCET_LIMIT_EXCEEDED" | "IDEMPOTENCY_KEY_INVALID" | "IDEMPOTENCY_KEY_MISMATCH" | "IDEMPOTENCY_KEY_REQUIRED" | "IDP_STATE_INVALID" | "MALFORMED_JSON" | "MALFORMED_REQUEST" | "MALFORMED_URL" | "NETWORK_INVALID" | "ONE_TIME_TOKEN_INVALID" | "PASSKEY_CHALLENGE_INVALID" | "PASSKEY_VERIFICATION_FAILED" | "PASSWORD_POLICY" | "PAYMENT_METHOD_ACCOUNT_INVALID" | "PAYMENT_METHOD_BIC_INVALID" | "PAYMENT_METHOD_CURRENCY_INVALID" | "PAYMENT_METHOD_IBAN_INVALID" | "PAYMENT_METHOD_KIND_MISMATCH" | "PAYMENT_METHOD_ROUTING_INVALID" | "PROVIDER_UNKNOWN" | "REDIRECT_URL_NOT_ALLOWED" | "REQUEST_TOO_DEEP" | "SEQUENCE_INVALID" | "SIGNATURE_INVALID" | "SIWE_CHAIN_MISMATCH" | "SIWE_DOMAIN_MISMATCH" | "SIWE_MESSAGE_EXPIRED" | "SIWE_MESSAGE_INVALID" | "SIWE_MESSAGE_NOT_YET_VALID" | "SIWE_SIGNATURE_MALLEATED" | "SIWE_URI_MISMATCH" | "SYMBOL_UNKNOWN" | "TENANT_APP_URL_INVALID" | "TENANT_CORS_ORIGIN_INVALID" | "TENANT_NAME_INVALID" | "TRANSACTION_INVALID" | "TRANSFER_SOURCE_INVALID" | "TRAVEL_RULE_DATA_REQUIRED" | "USER_EMAIL_INVALID" | "USER_ID_REQUIRED" | "USER_PHONE_INVALID" | "VALIDATION_FAILED" | "VAULT_LOOKUP_INVALID" | "WEBHOOK_MALFORMED" | "XRPL_ACCOUNT_NOT_FOUND" | "XRPL_ACCOUNT_NOT_SECURED" | "XRPL_BLOB_FOREIGN_ACCOUNT" | "XRPL_BLOB_INVALID" | "XRPL_BLOB_NO_LAST_LEDGER" | "XRPL_BLOB_SIGNATURE_INVALID" | "XRPL_QUORUM_NOT_MET" | "XRPL_SETTINGS_EMPTY";
                    /** @constant */
                    statusCode?: 400;
                };
            };
        };
        /** @description Missing or unknown x-tenant-id, or missing, invalid or expired credential */
        Error401: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 401,
                 *       "error": "Unauthorized",
                 *       "message": "The bearer access token is malformed, expired, revoked or of another tenant",
                 *       "code": "TOKEN_INVALID"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "API_KEY_INVALID" | "CHALLENGE_INVALID" | "CREDENTIALS_REQUIRED" | "CUSTODY_B_CREDENTIAL_REJECTED" | "INVALID_CREDENTIALS" | "PASSKEY_LOGIN_FAILED" | "REFRESH_TOKEN_INVALID" | "TENANT_REQUIRED" | "TENANT_UNKNOWN" | "TOKEN_INVALID" | "WEBHOOK_SIGNATURE_INVALID" | "WEBHOOK_SIGNATURE_MISSING" | "WEBHOOK_TENANT_UNKNOWN";
                    /** @constant */
                    statusCode?: 401;
                };
            };
        };
        /** @description Valid credential with insufficient role or permissions */
        Error403: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 403,
                 *       "error": "Forbidden",
                 *       "message": "The caller's role or credential kind may not do this",
                 *       "code": "FORBIDDEN"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "ENTITY_PERMISSION_REQUIRED" | "FORBIDDEN" | "PASSWORD_INCORRECT";
                    /** @constant */
                    statusCode?: 403;
                };
            };
        };
        /** @description Not found, or belongs to another tenant or user */
        Error404: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 404,
                 *       "error": "Not Found",
                 *       "message": "The user does not exist in the tenant, or the caller may not see it",
                 *       "code": "USER_NOT_FOUND"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "ACCREDITATION_NOT_FOUND" | "API_KEY_NOT_FOUND" | "BANK_LINK_ITEM_NOT_FOUND" | "BANK_LINK_ORIGINATOR_NOT_FOUND" | "BANK_LINK_SANDBOX_UNAVAILABLE" | "BUSINESS_NOT_FOUND" | "BUSINESS_PROFILE_NOT_FOUND" | "CUSTODY_B_USER_NOT_REGISTERED" | "CUSTODY_TRANSACTION_NOT_FOUND" | "DOCUMENT_NOT_FOUND" | "ENTITY_MEMBER_NOT_FOUND" | "ENTITY_NOT_FOUND" | "EVENT_DELIVERY_NOT_FOUND" | "EVENT_ENDPOINT_NOT_FOUND" | "IDENTITY_PATH_NOT_FOUND" | "KYC_NOT_FOUND" | "PASSKEY_NOT_FOUND" | "PAYMENT_METHOD_NOT_FOUND" | "PROVIDER_NOT_FOUND" | "ROUTE_NOT_FOUND" | "SESSION_NOT_FOUND" | "SIGNED_DOCUMENT_NOT_FOUND" | "TENANT_NOT_FOUND" | "TRANSFER_NOT_FOUND" | "USER_NOT_FOUND" | "VAULT_NOT_FOUND" | "WALLET_NOT_FOUND" | "XRPL_SECURE_ACCOUNT_NOT_FOUND" | "XRPL_TEST_SIGNING_OFF";
                    /** @constant */
                    statusCode?: 404;
                };
            };
        };
        /** @description The request was not received in time */
        Error408: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 408,
                 *       "error": "Request Timeout",
                 *       "message": "The request was not received in time",
                 *       "code": "REQUEST_TIMEOUT"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "REQUEST_TIMEOUT";
                    /** @constant */
                    statusCode?: 408;
                };
            };
        };
        /** @description Conflict with the current state */
        Error409: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 409,
                 *       "error": "Conflict",
                 *       "message": "The idempotency key was used for a different request",
                 *       "code": "IDEMPOTENCY_KEY_REUSED"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "ACCREDITATION_ALREADY_DECIDED" | "BANK_LINK_ITEM_ALREADY_LINKED" | "BUSINESS_PROFILE_EXISTS" | "CUSTODY_B_PROVIDER_CONFLICT" | "CUSTODY_B_USER_ALREADY_REGISTERED" | "DOCUMENT_ALREADY_SIGNED" | "ENTITY_LAST_OWNER" | "ENTITY_LEI_TAKEN" | "ENTITY_MEMBER_EXISTS" | "EVENT_DELIVERY_DELIVERED" | "EVENT_DELIVERY_IN_FLIGHT" | "EVENT_ENDPOINT_DISABLED" | "EVENT_ENDPOINT_LIMIT" | "FAUCET_NOT_SANDBOX" | "IDEMPOTENCY_IN_PROGRESS" | "IDEMPOTENCY_KEY_REUSED" | "KYC_TRANSITION_INVALID" | "PASSKEY_ALREADY_REGISTERED" | "PASSKEY_LIMIT_REACHED" | "TENANT_NAME_TAKEN" | "TWO_FACTOR_ALREADY_ENABLED" | "TWO_FACTOR_NOT_ENABLED" | "USER_EMAIL_TAKEN" | "USER_PHONE_TAKEN" | "WALLET_ADDRESS_TAKEN" | "WALLET_EXISTS" | "WALLET_KIND_CONFLICT" | "XRPL_COLD_SIGNATURE_REQUIRED" | "XRPL_MULTISIG_PREREQUISITES" | "XRPL_NO_SERVICE_KEY" | "XRPL_TRANSACTION_REFUSED";
                    /** @constant */
                    statusCode?: 409;
                };
            };
        };
        /** @description Request body too large */
        Error413: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 413,
                 *       "error": "Payload Too Large",
                 *       "message": "The body is larger than the route accepts",
                 *       "code": "BODY_TOO_LARGE"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "BODY_TOO_LARGE" | "DOCUMENT_TOO_LARGE";
                    /** @constant */
                    statusCode?: 413;
                };
            };
        };
        /** @description A path segment of the URL is too long */
        Error414: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 414,
                 *       "error": "URI Too Long",
                 *       "message": "A path segment of the URL is too long",
                 *       "code": "URL_TOO_LONG"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "URL_TOO_LONG";
                    /** @constant */
                    statusCode?: 414;
                };
            };
        };
        /** @description The body is not of a content type the operation takes */
        Error415: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 415,
                 *       "error": "Unsupported Media Type",
                 *       "message": "The route does not accept this content type",
                 *       "code": "UNSUPPORTED_MEDIA_TYPE"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "DOCUMENT_MULTIPART_REQUIRED" | "DOCUMENT_TYPE_UNSUPPORTED" | "UNSUPPORTED_MEDIA_TYPE";
                    /** @constant */
                    statusCode?: 415;
                };
            };
        };
        /** @description Too many requests; retry after the Retry-After header */
        Error429: {
            headers: {
                "retry-after": components["headers"]["RetryAfter"];
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 429,
                 *       "error": "Too Many Requests",
                 *       "message": "Too many requests or attempts; retry after Retry-After seconds",
                 *       "code": "RATE_LIMITED"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "RATE_LIMITED" | "TWO_FACTOR_LOCKED";
                    /** @constant */
                    statusCode?: 429;
                };
            };
        };
        /** @description The request line and headers are too large */
        Error431: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 431,
                 *       "error": "Request Header Fields Too Large",
                 *       "message": "The request line and headers are too large",
                 *       "code": "HEADERS_TOO_LARGE"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "HEADERS_TOO_LARGE";
                    /** @constant */
                    statusCode?: 431;
                };
            };
        };
        /** @description Internal server error */
        Error500: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 500,
                 *       "error": "Internal Server Error",
                 *       "message": "An unexpected failure (logged)",
                 *       "code": "INTERNAL"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "INTERNAL";
                    /** @constant */
                    statusCode?: 500;
                };
            };
        };
        /** @description A provider refused or failed the request */
        Error502: {
            headers: {
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 502,
                 *       "error": "Bad Gateway",
                 *       "message": "The provider refused the request",
                 *       "code": "PROVIDER_REFUSED"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "BANK_LINK_PROVIDER_ERROR" | "BUSINESS_PROFILE_PROVIDER_ERROR" | "CUSTODY_B_PROVIDER_UNAVAILABLE" | "CUSTODY_PROVIDER_ERROR" | "CUSTODY_PROVIDER_REFUSED" | "IDP_UNAVAILABLE" | "KYC_PROVIDER_ERROR" | "PROVIDER_ERROR" | "PROVIDER_REFUSED" | "PROVIDER_UNAUTHORIZED";
                    /** @constant */
                    statusCode?: 502;
                };
            };
        };
        /** @description Temporarily unavailable (overload, shutdown, a provider or chain down); retry after the Retry-After header */
        Error503: {
            headers: {
                "retry-after": components["headers"]["RetryAfter"];
                "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "statusCode": 503,
                 *       "error": "Service Unavailable",
                 *       "message": "Too many password hashes in progress; retry shortly",
                 *       "code": "BUSY"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {string} */
                    code?: "BANK_LINK_PROVIDER_UNAVAILABLE" | "BUSY" | "CHAIN_UNAVAILABLE" | "CUSTODY_PROVIDER_UNAVAILABLE" | "CUSTODY_WEBHOOK_OBJECT_UNKNOWN" | "FAUCET_UNAVAILABLE" | "KYC_PROVIDER_UNAVAILABLE" | "NOT_READY" | "PROVIDER_NOT_CONFIGURED" | "PROVIDER_UNAVAILABLE" | "RATE_LIMIT_UNAVAILABLE" | "XRPL_FUNDING_FAILED";
                    /** @constant */
                    statusCode?: 503;
                };
            };
        };
    };
    parameters: {
        /**
         * @description Makes a retry safe: the same key replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED
         * @example 4c1f2a8e-transfer-001
         */
        IdempotencyKey: string;
        /** @description The event id: the same on every attempt and replay (deduplicate on it) */
        WebhookId: string;
        /**
         * @description Send time, in seconds since the epoch (refuse old ones)
         * @example 1768469400
         */
        WebhookTimestamp: string;
    };
    requestBodies: never;
    headers: {
        /** @description `true` when the answer is the stored first answer of an earlier request with the same idempotency key */
        IdempotentReplayed: "true";
        /**
         * @description Requests allowed per client address in the global window
         * @example 600
         */
        RateLimitLimit: string;
        /**
         * @description Requests left in the global window for this client address
         * @example 599
         */
        RateLimitRemaining: string;
        /**
         * @description The request id (also in the service’s logs); quote it when reporting a problem
         * @example req-7f3a9c
         */
        RequestId: string;
        /**
         * @description Seconds to wait before retrying
         * @example 30
         */
        RetryAfter: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getWellKnownJwksJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "kty": "string",
                     *           "crv": "string",
                     *           "x": "string",
                     *           "kid": "string",
                     *           "alg": "string",
                     *           "use": "string"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        keys: {
                            alg: string;
                            crv: string;
                            kid: string;
                            kty: string;
                            use: string;
                            x: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAccreditations: {
        parameters: {
            query: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                userId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "type": "income",
                     *           "documentIds": [
                     *             "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                     *           ],
                     *           "notes": "string",
                     *           "status": "pending",
                     *           "reason": "Document expired",
                     *           "decidedAt": "2026-01-15T09:30:00.000Z",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z",
                     *           "history": [
                     *             {
                     *               "from": "string",
                     *               "to": "string",
                     *               "actor": {
                     *                 "type": "string",
                     *                 "id": "string"
                     *               },
                     *               "reason": "Document expired",
                     *               "at": "2026-01-15T09:30:00.000Z"
                     *             }
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Accreditation"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAccreditations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "income",
                 *       "documentIds": [
                 *         "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                 *       ],
                 *       "notes": "string",
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                 *     }
                 */
                "application/json": {
                    /** @description Supporting user documents */
                    documentIds?: string[];
                    notes?: string;
                    /** @enum {unknown} */
                    type: "income" | "net_worth" | "professional_certification" | "entity" | "knowledgeable_employee" | "other";
                    /**
                     * Format: uuid
                     * @description Required with an API key; an admin token defaults to the admin itself; a plain user claims for themself
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "type": "income",
                     *       "documentIds": [
                     *         "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                     *       ],
                     *       "notes": "string",
                     *       "status": "pending",
                     *       "reason": "Document expired",
                     *       "decidedAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "history": [
                     *         {
                     *           "from": "string",
                     *           "to": "string",
                     *           "actor": {
                     *             "type": "string",
                     *             "id": "string"
                     *           },
                     *           "reason": "Document expired",
                     *           "at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Accreditation"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAccreditationsByIdDecision: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "decision": "approved",
                 *       "reason": "Document expired"
                 *     }
                 */
                "application/json": {
                    /** @enum {unknown} */
                    decision: "approved" | "rejected";
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "type": "income",
                     *       "documentIds": [
                     *         "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                     *       ],
                     *       "notes": "string",
                     *       "status": "pending",
                     *       "reason": "Document expired",
                     *       "decidedAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "history": [
                     *         {
                     *           "from": "string",
                     *           "to": "string",
                     *           "actor": {
                     *             "type": "string",
                     *             "id": "string"
                     *           },
                     *           "reason": "Document expired",
                     *           "at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Accreditation"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAccreditationsPending: {
        parameters: {
            query?: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "type": "income",
                     *           "documentIds": [
                     *             "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                     *           ],
                     *           "notes": "string",
                     *           "status": "pending",
                     *           "reason": "Document expired",
                     *           "decidedAt": "2026-01-15T09:30:00.000Z",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z",
                     *           "history": [
                     *             {
                     *               "from": "string",
                     *               "to": "string",
                     *               "actor": {
                     *                 "type": "string",
                     *                 "id": "string"
                     *               },
                     *               "reason": "Document expired",
                     *               "at": "2026-01-15T09:30:00.000Z"
                     *             }
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Accreditation"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "name": "Example",
                     *           "prefix": "string",
                     *           "scopes": [
                     *             "string"
                     *           ],
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "lastUsedAt": "2026-01-15T09:30:00.000Z",
                     *           "expiresAt": "2026-01-15T09:30:00.000Z",
                     *           "rotatedFrom": "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: {
                            /** Format: date-time */
                            createdAt: string;
                            expiresAt: string | null;
                            /** Format: uuid */
                            id: string;
                            /** @description Updated at most once a minute */
                            lastUsedAt: string | null;
                            name: string | null;
                            /** @description The start of the key (bst_ and 8 hex digits of its id) */
                            prefix: string;
                            /** @description The key this one replaced */
                            rotatedFrom: string | null;
                            /** @description The scopes; `all` for a key without limits */
                            scopes: string[];
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "name": "string",
                 *       "scopes": [
                 *         "all"
                 *       ],
                 *       "expiresAt": "2026-01-15T09:30:00.000Z"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: date-time
                     * @description Default: never
                     */
                    expiresAt?: string;
                    name?: string;
                    /** @description Default: all */
                    scopes?: ("all" | "read-only" | "users" | "kyc" | "wallets" | "documents")[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "name": "Example",
                     *       "prefix": "string",
                     *       "scopes": [
                     *         "string"
                     *       ],
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "lastUsedAt": "2026-01-15T09:30:00.000Z",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "rotatedFrom": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "apiKey": "string"
                     *     }
                     */
                    "application/json": {
                        /** @description The secret key: shown only in this answer */
                        apiKey: string;
                        /** Format: date-time */
                        createdAt: string;
                        expiresAt: string | null;
                        /** Format: uuid */
                        id: string;
                        /** @description Updated at most once a minute */
                        lastUsedAt: string | null;
                        name: string | null;
                        /** @description The start of the key (bst_ and 8 hex digits of its id) */
                        prefix: string;
                        /** @description The key this one replaced */
                        rotatedFrom: string | null;
                        /** @description The scopes; `all` for a key without limits */
                        scopes: string[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteApiKeysByKeyId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postApiKeysByKeyIdRotate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "overlapSeconds": 0,
                 *       "expiresAt": "2026-01-15T09:30:00.000Z"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: date-time
                     * @description Expiry of the new key (default: never)
                     */
                    expiresAt?: string;
                    /** @description How long the old key stays valid (default 3600; 0: refused at once) */
                    overlapSeconds?: number;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "name": "Example",
                     *       "prefix": "string",
                     *       "scopes": [
                     *         "string"
                     *       ],
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "lastUsedAt": "2026-01-15T09:30:00.000Z",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "rotatedFrom": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "apiKey": "string",
                     *       "previousKeyExpiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The secret key: shown only in this answer */
                        apiKey: string;
                        /** Format: date-time */
                        createdAt: string;
                        expiresAt: string | null;
                        /** Format: uuid */
                        id: string;
                        /** @description Updated at most once a minute */
                        lastUsedAt: string | null;
                        name: string | null;
                        /** @description The start of the key (bst_ and 8 hex digits of its id) */
                        prefix: string;
                        /**
                         * Format: date-time
                         * @description When the old key is refused
                         */
                        previousKeyExpiresAt: string;
                        /** @description The key this one replaced */
                        rotatedFrom: string | null;
                        /** @description The scopes; `all` for a key without limits */
                        scopes: string[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAuditEvents: {
        parameters: {
            query?: {
                /** @description Keyset cursor of a newest-first list: return rows older than this id (the last id of the previous page) */
                beforeId?: string;
                /** @description json (default): a page `{total, data}`. ndjson: every matching event, one JSON object a line, streamed (also chosen by `Accept: application/x-ndjson`; `format` wins over the header) */
                format?: "json" | "ndjson";
                /** @description Only events created at or after this time */
                from?: string;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                /** @description Only events created before this time */
                to?: string;
                /** @description Only events of this type (exact) */
                type?: string;
                /** @description Only events about this user */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page `{total, data}`; with `format=ndjson` or `Accept: application/x-ndjson`, every matching event, one AuditEvent a line, newest first */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "type": "string",
                     *           "actorType": "user",
                     *           "actorId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "subjectUserId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "objectType": "string",
                     *           "objectId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "ip": "string",
                     *           "userAgent": "string",
                     *           "details": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: {
                            actorId: string | null;
                            actorType: "user" | "api_key" | "system" | "anonymous" | "provider";
                            /** Format: date-time */
                            createdAt: string;
                            /** @description Event specifics; never secrets */
                            details: {
                                [key: string]: unknown;
                            };
                            /** Format: uuid */
                            id: string;
                            ip: string | null;
                            objectId: string | null;
                            objectType: string | null;
                            subjectUserId: string | null;
                            /** @description What happened: one of the audit types listed at the top of this document (x-audit-types), e.g. login.succeeded */
                            type: string;
                            userAgent: string | null;
                        }[];
                        total: number;
                    };
                    "application/x-ndjson": {
                        actorId: string | null;
                        actorType: "user" | "api_key" | "system" | "anonymous" | "provider";
                        /** Format: date-time */
                        createdAt: string;
                        /** @description Event specifics; never secrets */
                        details: {
                            [key: string]: unknown;
                        };
                        /** Format: uuid */
                        id: string;
                        ip: string | null;
                        objectId: string | null;
                        objectType: string | null;
                        subjectUserId: string | null;
                        /** @description What happened: one of the audit types listed at the top of this document (x-audit-types), e.g. login.succeeded */
                        type: string;
                        userAgent: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuth2faDisable: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": {
                    /** @description 8 to 128 characters, not a common password */
                    password: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "enabled": true,
                     *       "method": "email",
                     *       "enabledAt": "2026-01-15T09:30:00.000Z",
                     *       "recoveryCodesRemaining": 1
                     *     }
                     */
                    "application/json": components["schemas"]["TwoFactorStatus"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuth2faEnable: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "123456",
                 *       "method": "email"
                 *     }
                 */
                "application/json": {
                    /** @description 6-digit code from the mail */
                    code: string;
                    /** @description Which setup the code confirms; default: TOTP while a TOTP setup is in progress, else email */
                    method?: "email" | "totp";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "enabled": true,
                     *       "method": "email",
                     *       "enabledAt": "2026-01-15T09:30:00.000Z",
                     *       "recoveryCodesRemaining": 1,
                     *       "recoveryCodes": [
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        enabled: boolean;
                        enabledAt: string | null;
                        method: "email" | "totp" | null;
                        /** @description Ten single-use codes, shown once: keep them safe */
                        recoveryCodes?: string[];
                        /** @description TOTP only: unused recovery codes */
                        recoveryCodesRemaining?: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuth2faRecoveryCodes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": {
                    /** @description 8 to 128 characters, not a common password */
                    password: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "recoveryCodes": [
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string",
                     *         "string"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description Ten single-use codes, shown once: keep them safe */
                        recoveryCodes: string[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuth2faSetup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "method": "email",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": {
                    method: "email" | "totp";
                    /** @description Needed only to switch from the other method while it is on */
                    password?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Done",
                     *       "method": "totp",
                     *       "secret": "string",
                     *       "otpauthUrl": "https://app.example.com/return",
                     *       "qrCodeDataUrl": "https://app.example.com/return"
                     *     }
                     */
                    "application/json": {
                        message: string;
                        /** @enum {string} */
                        method: "totp";
                        /** @description otpauth://totp/... URI (Key Uri Format) for authenticator apps */
                        otpauthUrl: string;
                        /** @description The otpauth URI as an SVG QR code, a data: URL for an <img> */
                        qrCodeDataUrl: string;
                        /** @description Base32 secret (SHA-1, 6 digits, 30 s), for manual entry; shown once */
                        secret: string;
                    } | components["schemas"]["Message"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAuth2faStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "enabled": true,
                     *       "method": "email",
                     *       "enabledAt": "2026-01-15T09:30:00.000Z",
                     *       "recoveryCodesRemaining": 1
                     *     }
                     */
                    "application/json": components["schemas"]["TwoFactorStatus"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuth2faVerify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "challengeToken": "c2FtcGxlLXRva2Vu",
                 *       "code": "123456"
                 *     }
                 */
                "application/json": {
                    challengeToken: string;
                    /** @description 6-digit code (mailed, or from the authenticator app), or with TOTP an unused recovery code (xxxxx-xxxxx) */
                    code: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accessToken": "eyJhbGciOiJFZERTQSIsImtpZCI6IjFmMmUifQ.eyJzdWIiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.c2lnbmF0dXJl",
                     *       "refreshToken": "rt_4mJ0cXhU2q8fK1wZ9bLr7yTn",
                     *       "tokenType": "Bearer",
                     *       "expiresIn": 900,
                     *       "accessTokenExpiresAt": "2026-01-15T09:45:00.000Z",
                     *       "refreshTokenExpiresAt": "2026-01-22T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TokenPair"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthEmail: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple",
                 *       "fullName": "Ada Lovelace"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @description Email address; compared case-insensitively
                     */
                    email: string;
                    fullName?: string;
                    /** @description 8 to 128 characters, not a common password */
                    password: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada Lovelace",
                     *       "phone": null,
                     *       "role": "user",
                     *       "emailVerified": false,
                     *       "kycStatus": null,
                     *       "evmEoa": null,
                     *       "xrplSecureAccountAddress": null,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthEmailLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": components["schemas"]["Credentials"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accessToken": "eyJhbGciOiJFZERTQSIsImtpZCI6IjFmMmUifQ.eyJzdWIiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.c2lnbmF0dXJl",
                     *       "refreshToken": "rt_4mJ0cXhU2q8fK1wZ9bLr7yTn",
                     *       "tokenType": "Bearer",
                     *       "expiresIn": 900,
                     *       "accessTokenExpiresAt": "2026-01-15T09:45:00.000Z",
                     *       "refreshTokenExpiresAt": "2026-01-22T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TokenPair"] | components["schemas"]["TwoFactorChallenge"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthEmailResendOtp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @description Email address; compared case-insensitively
                     */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Done"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthEmailResendVerification: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @description Email address; compared case-insensitively
                     */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Done"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAuthEmailVerify: {
        parameters: {
            query: {
                /** @description Email address; compared case-insensitively */
                email: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Done",
                     *       "emailVerified": true
                     *     }
                     */
                    "application/json": components["schemas"]["EmailVerification"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthEmailVerifyOtp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "code": "123456"
                 *     }
                 */
                "application/json": {
                    /** @description 6-digit code from the mail */
                    code: string;
                    /**
                     * Format: email
                     * @description Email address; compared case-insensitively
                     */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Email verified",
                     *       "emailVerified": true
                     *     }
                     */
                    "application/json": components["schemas"]["EmailVerification"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthEmailVerifyToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "c2FtcGxlLXRva2Vu"
                 *     }
                 */
                "application/json": {
                    token: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Done",
                     *       "emailVerified": true
                     *     }
                     */
                    "application/json": components["schemas"]["EmailVerification"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthForgotPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @description Email address; compared case-insensitively
                     */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Done"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthForgotPasswordRequestOtp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @description Email address; compared case-insensitively
                     */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Done"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthForgotPasswordVerifyOtp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "code": "123456"
                 *     }
                 */
                "application/json": {
                    /** @description 6-digit code from the mail */
                    code: string;
                    /**
                     * Format: email
                     * @description Email address; compared case-insensitively
                     */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "resetToken": "c2FtcGxlLXRva2Vu",
                     *       "expiresIn": 1
                     *     }
                     */
                    "application/json": {
                        /** @description Seconds */
                        expiresIn: number;
                        /** @description Single use; send it to PUT /auth/reset-password?token= */
                        resetToken: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAuthIdp: {
        parameters: {
            query: {
                /** @description Client URL to return to; must be on the tenant's allow-list */
                redirectUrl: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "authorizationUrl": "https://app.example.com/return",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The provider's authorization URL: send the user's browser there */
                        authorizationUrl: string;
                        /**
                         * Format: date-time
                         * @description The login must complete before this time (10 minutes)
                         */
                        expiresAt: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getAuthIdpCallback: {
        parameters: {
            query: {
                code?: string;
                error?: string;
                error_description?: string;
                iss?: string;
                /** @description The base64url state issued by GET /auth/idp */
                state: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Redirect to the client URL; the outcome is in the fragment */
            303: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAuthIdpConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "issuer": "string",
                     *       "clientId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "clientSecret": "string",
                     *       "scopes": "string",
                     *       "redirectAllow": [
                     *         "string"
                     *       ],
                     *       "callbackUrl": "https://app.example.com/return",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The redirect URI to register at the provider */
                        callbackUrl: string;
                        clientId: string;
                        /** @description Always masked */
                        clientSecret: string;
                        issuer: string;
                        redirectAllow: string[];
                        scopes: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": components["schemas"]["Credentials"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accessToken": "eyJhbGciOiJFZERTQSIsImtpZCI6IjFmMmUifQ.eyJzdWIiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.c2lnbmF0dXJl",
                     *       "refreshToken": "rt_4mJ0cXhU2q8fK1wZ9bLr7yTn",
                     *       "tokenType": "Bearer",
                     *       "expiresIn": 900,
                     *       "accessTokenExpiresAt": "2026-01-15T09:45:00.000Z",
                     *       "refreshTokenExpiresAt": "2026-01-22T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TokenPair"] | components["schemas"]["TwoFactorChallenge"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthLogout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Logged out"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAuthPasskeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "name": "Example",
                     *           "deviceType": "singleDevice",
                     *           "backedUp": true,
                     *           "transports": [
                     *             "string"
                     *           ],
                     *           "aaguid": "string",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "lastUsedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: {
                            /** @description The authenticator model's AAGUID */
                            aaguid: string | null;
                            /** @description The authenticator reported the credential backed up (synced) */
                            backedUp: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description multiDevice: a synced passkey */
                            deviceType: "singleDevice" | "multiDevice";
                            /** Format: uuid */
                            id: string;
                            lastUsedAt: string | null;
                            name: string;
                            transports: string[];
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAuthPasskeysByPasskeyId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                passkeyId: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthPasskeysLoginBegin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "options": {
                     *         "challenge": "string",
                     *         "timeout": 1,
                     *         "rpId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "allowCredentials": [
                     *           {
                     *             "id": "string",
                     *             "type": "public-key",
                     *             "transports": [
                     *               "string"
                     *             ]
                     *           }
                     *         ],
                     *         "userVerification": "string",
                     *         "hints": [
                     *           "string"
                     *         ]
                     *       },
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /**
                         * Format: date-time
                         * @description The challenge is single use and expires then
                         */
                        expiresAt: string;
                        options: {
                            allowCredentials?: {
                                id: string;
                                transports?: string[];
                                /** @description public-key */
                                type: string;
                            }[];
                            challenge: string;
                            hints?: string[];
                            rpId?: string;
                            timeout?: number;
                            userVerification?: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthPasskeysLoginFinish: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "credential": {
                 *         "id": "c2FtcGxlLXRva2Vu",
                 *         "rawId": "c2FtcGxlLXRva2Vu",
                 *         "type": "public-key",
                 *         "authenticatorAttachment": "platform",
                 *         "clientExtensionResults": {},
                 *         "response": {
                 *           "clientDataJSON": "c2FtcGxlLXRva2Vu",
                 *           "authenticatorData": "c2FtcGxlLXRva2Vu",
                 *           "signature": "c2FtcGxlLXRva2Vu",
                 *           "userHandle": "c2FtcGxlLXRva2Vu"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    credential: {
                        authenticatorAttachment?: "platform" | "cross-platform";
                        clientExtensionResults: {
                            [key: string]: unknown;
                        };
                        /** @description Credential id */
                        id: string;
                        /** @description Credential id */
                        rawId: string;
                        response: {
                            /** @description Authenticator data, base64url */
                            authenticatorData: string;
                            /** @description Client data, base64url */
                            clientDataJSON: string;
                            /** @description Signature, base64url */
                            signature: string;
                            /** @description User handle, base64url */
                            userHandle?: string;
                        };
                        /** @enum {string} */
                        type: "public-key";
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accessToken": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiIzZmE4NWY2NCJ9.c2lnbmF0dXJl",
                     *       "refreshToken": "rt_2p9XkR6vQ1mZ8sLw4cYt0bNj",
                     *       "tokenType": "Bearer",
                     *       "expiresIn": 1,
                     *       "accessTokenExpiresAt": "2026-01-15T09:30:00.000Z",
                     *       "refreshTokenExpiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TokenPair"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthPasskeysRegisterBegin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "name": "Example"
                 *     }
                 */
                "application/json": {
                    /** @description A name the user knows it by ("Laptop", "Phone") */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "options": {
                     *         "rp": {
                     *           "name": "Example",
                     *           "id": "string"
                     *         },
                     *         "user": {
                     *           "id": "string",
                     *           "name": "Example",
                     *           "displayName": "string"
                     *         },
                     *         "challenge": "string",
                     *         "pubKeyCredParams": [
                     *           {
                     *             "alg": 1,
                     *             "type": "public-key"
                     *           }
                     *         ],
                     *         "timeout": 1,
                     *         "excludeCredentials": [
                     *           {
                     *             "id": "string",
                     *             "type": "public-key",
                     *             "transports": [
                     *               "string"
                     *             ]
                     *           }
                     *         ],
                     *         "authenticatorSelection": {
                     *           "authenticatorAttachment": "string",
                     *           "residentKey": "string",
                     *           "requireResidentKey": true,
                     *           "userVerification": "string"
                     *         },
                     *         "attestation": "string",
                     *         "extensions": {
                     *           "credProps": true
                     *         },
                     *         "hints": [
                     *           "string"
                     *         ]
                     *       },
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /**
                         * Format: date-time
                         * @description The challenge is single use and expires then
                         */
                        expiresAt: string;
                        options: {
                            attestation?: string;
                            authenticatorSelection?: {
                                authenticatorAttachment?: string;
                                requireResidentKey?: boolean;
                                residentKey?: string;
                                userVerification?: string;
                            };
                            challenge: string;
                            excludeCredentials?: {
                                id: string;
                                transports?: string[];
                                /** @description public-key */
                                type: string;
                            }[];
                            extensions?: {
                                credProps?: boolean;
                            };
                            hints?: string[];
                            pubKeyCredParams: {
                                alg: number;
                                /** @description public-key */
                                type: string;
                            }[];
                            rp: {
                                id?: string;
                                name: string;
                            };
                            timeout?: number;
                            user: {
                                displayName: string;
                                id: string;
                                name: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthPasskeysRegisterFinish: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Example",
                 *       "credential": {
                 *         "id": "c2FtcGxlLXRva2Vu",
                 *         "rawId": "c2FtcGxlLXRva2Vu",
                 *         "type": "public-key",
                 *         "authenticatorAttachment": "platform",
                 *         "clientExtensionResults": {},
                 *         "response": {
                 *           "clientDataJSON": "c2FtcGxlLXRva2Vu",
                 *           "attestationObject": "c2FtcGxlLXRva2Vu",
                 *           "authenticatorData": "c2FtcGxlLXRva2Vu",
                 *           "transports": [
                 *             "string"
                 *           ],
                 *           "publicKeyAlgorithm": 1,
                 *           "publicKey": "c2FtcGxlLXRva2Vu"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    credential: {
                        authenticatorAttachment?: "platform" | "cross-platform";
                        clientExtensionResults: {
                            [key: string]: unknown;
                        };
                        /** @description Credential id */
                        id: string;
                        /** @description Credential id */
                        rawId: string;
                        response: {
                            /** @description Attestation object, base64url */
                            attestationObject: string;
                            /** @description Authenticator data */
                            authenticatorData?: string;
                            /** @description Client data, base64url */
                            clientDataJSON: string;
                            /** @description Public key (SPKI) */
                            publicKey?: string;
                            publicKeyAlgorithm?: number;
                            transports?: string[];
                        };
                        /** @enum {string} */
                        type: "public-key";
                    };
                    /** @description A name the user knows it by ("Laptop", "Phone") */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "name": "Example",
                     *       "deviceType": "singleDevice",
                     *       "backedUp": true,
                     *       "transports": [
                     *         "string"
                     *       ],
                     *       "aaguid": "string",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "lastUsedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The authenticator model's AAGUID */
                        aaguid: string | null;
                        /** @description The authenticator reported the credential backed up (synced) */
                        backedUp: boolean;
                        /** Format: date-time */
                        createdAt: string;
                        /** @description multiDevice: a synced passkey */
                        deviceType: "singleDevice" | "multiDevice";
                        /** Format: uuid */
                        id: string;
                        lastUsedAt: string | null;
                        name: string;
                        transports: string[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthRefresh: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "refreshToken": "rt_4mJ0cXhU2q8fK1wZ9bLr7yTn"
                 *     }
                 */
                "application/json": {
                    refreshToken: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accessToken": "eyJhbGciOiJFZERTQSIsImtpZCI6IjFmMmUifQ.eyJzdWIiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.c2lnbmF0dXJl",
                     *       "refreshToken": "rt_4mJ0cXhU2q8fK1wZ9bLr7yTn",
                     *       "tokenType": "Bearer",
                     *       "expiresIn": 900,
                     *       "accessTokenExpiresAt": "2026-01-15T09:45:00.000Z",
                     *       "refreshTokenExpiresAt": "2026-01-22T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TokenPair"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    putAuthResetPassword: {
        parameters: {
            query: {
                token: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": {
                    /** @description 8 to 128 characters, not a common password */
                    password: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Done"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getAuthSessions: {
        parameters: {
            query?: {
                /** @description Whose sessions (API key: required; admin: default itself; a user: only its own) */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userAgent": "string",
                     *           "ip": "string",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "lastUsedAt": "2026-01-15T09:30:00.000Z",
                     *           "current": true,
                     *           "startedBy": "string"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: {
                            /** Format: date-time */
                            createdAt: string;
                            /** @description The session of the calling bearer token */
                            current: boolean;
                            /** Format: uuid */
                            id: string;
                            /** @description The client address at the session’s start */
                            ip: string | null;
                            /**
                             * Format: date-time
                             * @description When the session last got a token pair (its start or its last refresh)
                             */
                            lastUsedAt: string;
                            /** @description `api-key:<keyId>` when the tenant’s back end minted the session; null for a login */
                            startedBy: string | null;
                            /** @description The User-Agent at the session’s start (first 256 characters) */
                            userAgent: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAuthSessions: {
        parameters: {
            query?: {
                /** @description Whose sessions (API key: required; admin: default itself; a user: only its own) */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ended": 0
                     *     }
                     */
                    "application/json": {
                        /** @description How many sessions were ended */
                        ended: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteAuthSessionsBySessionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Ended */
            204: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthTokenStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "c2FtcGxlLXRva2Vu"
                 *     }
                 */
                "application/json": {
                    token: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /** @example true */
                    "application/json": true;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postAuthUsersByUserIdToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accessToken": "eyJhbGciOiJFZERTQSIsImtpZCI6IjFmMmUifQ.eyJzdWIiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.c2lnbmF0dXJl",
                     *       "refreshToken": "rt_4mJ0cXhU2q8fK1wZ9bLr7yTn",
                     *       "tokenType": "Bearer",
                     *       "expiresIn": 900,
                     *       "accessTokenExpiresAt": "2026-01-15T09:45:00.000Z",
                     *       "refreshTokenExpiresAt": "2026-01-22T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TokenPair"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getBankLinkSandboxOriginators: {
        parameters: {
            query: {
                /** @description Page size, 1-25 */
                count: number;
                /** @description Originators to skip */
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "count": 1,
                     *       "offset": 1,
                     *       "data": [
                     *         {
                     *           "id": "string",
                     *           "companyName": "string",
                     *           "diligenceStatus": "not_submitted"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        count: number;
                        data: components["schemas"]["Originator"][];
                        offset: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postBankLinkSandboxOriginators: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "clientId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "secret": "string",
                 *       "companyName": "string"
                 *     }
                 */
                "application/json": {
                    /** @description The tenant's bank-link sandbox client id */
                    clientId: string;
                    companyName: string;
                    /** @description The tenant's bank-link sandbox secret */
                    secret: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "string",
                     *       "companyName": "string",
                     *       "diligenceStatus": "not_submitted"
                     *     }
                     */
                    "application/json": components["schemas"]["Originator"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getBankLinkSandboxOriginatorsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "string",
                     *       "companyName": "string",
                     *       "diligenceStatus": "not_submitted"
                     *     }
                     */
                    "application/json": components["schemas"]["Originator"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postBankLinkSandboxOriginatorsByIdKyb: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "clientId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "secret": "string",
                 *       "redirectUri": "https://app.example.com/return"
                 *     }
                 */
                "application/json": {
                    /** @description The tenant's bank-link sandbox client id */
                    clientId: string;
                    /** @description Where the questionnaire returns; must match the tenant's allow-list */
                    redirectUri: string;
                    /** @description The tenant's bank-link sandbox secret */
                    secret: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "originatorId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "onboardingUrl": "https://app.example.com/return"
                     *     }
                     */
                    "application/json": {
                        onboardingUrl: string;
                        originatorId: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getBankLinkItems: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 1,
                     *       "data": [
                     *         {
                     *           "itemId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "institutionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "institutionName": "string",
                     *           "status": "active",
                     *           "errorCode": "string",
                     *           "accounts": [
                     *             {
                     *               "accountId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *               "name": "Example",
                     *               "mask": "string",
                     *               "type": "string",
                     *               "subtype": "string"
                     *             }
                     *           ],
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["BankLinkItem"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteBankLinkItemsByItemId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                itemId: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "itemId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "removed": true
                     *     }
                     */
                    "application/json": {
                        /** Format: uuid */
                        itemId: string;
                        /** @enum {boolean} */
                        removed: true;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getBankLinkLinkToken: {
        parameters: {
            query: {
                /** @description Where the Link page returns the browser (with ?public_token=...); must match the tenant's allow-list */
                redirectUrl: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "linkToken": "c2FtcGxlLXRva2Vu",
                     *       "expiration": "2026-01-15T09:30:00.000Z",
                     *       "linkUrl": "https://app.example.com/return"
                     *     }
                     */
                    "application/json": components["schemas"]["LinkToken"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postBankLinkPublicToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "publicToken": "c2FtcGxlLXRva2Vu"
                 *     }
                 */
                "application/json": {
                    /** @description The public token the Link page handed back */
                    publicToken: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "itemId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "institutionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "institutionName": "string",
                     *       "status": "active",
                     *       "errorCode": "string",
                     *       "accounts": [
                     *         {
                     *           "accountId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "name": "Example",
                     *           "mask": "string",
                     *           "type": "string",
                     *           "subtype": "string"
                     *         }
                     *       ],
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BankLinkItem"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getBankLinkTenantLinkToken: {
        parameters: {
            query: {
                /** @description Where the Link page returns the browser (with ?public_token=...); must match the tenant's allow-list */
                redirectUrl: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "linkToken": "c2FtcGxlLXRva2Vu",
                     *       "expiration": "2026-01-15T09:30:00.000Z",
                     *       "linkUrl": "https://app.example.com/return"
                     *     }
                     */
                    "application/json": components["schemas"]["LinkToken"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getBankLinkTenantOriginator: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "string",
                     *       "companyName": "string",
                     *       "diligenceStatus": "not_submitted"
                     *     }
                     */
                    "application/json": components["schemas"]["Originator"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postBankLinkWebhooksByTenantId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "webhook_type": "string",
                 *       "webhook_code": "string"
                 *     }
                 */
                "application/json": {
                    webhook_code: string;
                    webhook_type: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        received: true;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getBusinessProfilesPending: {
        parameters: {
            query?: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "provider": "business-profile-a",
                     *           "providerBusinessId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "status": "submitting",
                     *           "tasks": [
                     *             {
                     *               "key": "string",
                     *               "category": "string",
                     *               "label": "Operating account",
                     *               "status": "success",
                     *               "message": "Done"
                     *             }
                     *           ],
                     *           "tin": "string",
                     *           "failure": "string",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["BusinessProfile"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postCallbacksBusinessProfileAByTenantId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        /** @description The provider event: {type, data: {object}} (docs/providers.md) */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true,
                     *       "applied": true
                     *     }
                     */
                    "application/json": {
                        applied: boolean;
                        received: boolean;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getCustodyATransfers: {
        parameters: {
            query?: {
                /** @description Keyset cursor of a newest-first list: return rows older than this id (the last id of the previous page) */
                beforeId?: string;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                /** @description Only transfers in this status (QUEUED, IN_PROGRESS, COMPLETED, FAILED) */
                status?: string;
                /** @description Only this user's transfers */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "provider": "string",
                     *           "idempotentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "amount": "10.5",
                     *           "assetType": "string",
                     *           "sourceId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "sourceType": "string",
                     *           "destinationId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "destinationType": "string",
                     *           "deductFeeFromAmountIfSameType": true,
                     *           "transferMemo": "string",
                     *           "status": "pending",
                     *           "providerTransferId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *           "failureReason": "string",
                     *           "hasQuestionnaire": true,
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z",
                     *           "history": [
                     *             {
                     *               "status": "pending",
                     *               "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *               "actor": {
                     *                 "type": "string",
                     *                 "id": "string"
                     *               },
                     *               "at": "2026-01-15T09:30:00.000Z"
                     *             }
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["AdminTransfer"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getCustodyATransfersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "idempotentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "amount": "10.5",
                     *       "assetType": "string",
                     *       "sourceId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "sourceType": "string",
                     *       "destinationId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "destinationType": "string",
                     *       "deductFeeFromAmountIfSameType": true,
                     *       "transferMemo": "string",
                     *       "status": "pending",
                     *       "providerTransferId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "failureReason": "string",
                     *       "hasQuestionnaire": true,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "history": [
                     *         {
                     *           "status": "pending",
                     *           "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *           "actor": {
                     *             "type": "string",
                     *             "id": "string"
                     *           },
                     *           "at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["AdminTransfer"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    putCustodyAVaultsByVaultIdWalletsByWalletId: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe: the same key replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED
                 * @example 4c1f2a8e-transfer-001
                 */
                "idempotency-key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                vaultId: string;
                walletId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Example",
                 *       "description": "Example description",
                 *       "accountSet": true
                 *     }
                 */
                "application/json": {
                    /** @description XRPL wallets: also issue an AccountSet turning on DefaultRipple */
                    accountSet?: boolean;
                    description?: string;
                    name: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "idempotent-replayed": components["headers"]["IdempotentReplayed"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "wallet": {
                     *         "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "kind": "evm-eoa",
                     *         "chain": "evm",
                     *         "network": "sepolia",
                     *         "chainId": 1,
                     *         "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "details": {},
                     *         "createdAt": "2026-01-15T09:30:00.000Z",
                     *         "updatedAt": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "name": "Example",
                     *       "description": "Example description",
                     *       "accountSet": {
                     *         "transactionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "type": "string",
                     *         "status": "pending",
                     *         "symbol": "ETH",
                     *         "qty": "10.5",
                     *         "destinationAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "contract": "string",
                     *         "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *         "failureReason": "string",
                     *         "createdAt": "2026-01-15T09:30:00.000Z",
                     *         "updatedAt": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        accountSet: components["schemas"]["CustodyTransaction"] | null;
                        description: string | null;
                        name: string;
                        wallet: components["schemas"]["Wallet"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getCustodyAVaultsByVaultIdWalletsByWalletIdTransactionsByTransactionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                transactionId: string;
                vaultId: string;
                walletId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "transactionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "type": "string",
                     *       "status": "pending",
                     *       "symbol": "ETH",
                     *       "qty": "10.5",
                     *       "destinationAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "contract": "string",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "failureReason": "string",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["CustodyTransaction"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyAVaultsByVaultIdWalletsByWalletIdTransactionsTransfer: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe: the same key replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED
                 * @example 4c1f2a8e-transfer-001
                 */
                "idempotency-key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                vaultId: string;
                walletId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "destinationAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *       "symbol": "ETH",
                 *       "qty": "10.5",
                 *       "contract": "string",
                 *       "sequence": "string"
                 *     }
                 */
                "application/json": {
                    /** @description ERC-20 contract, EIP-55 checksummed */
                    contract?: string;
                    destinationAddress: string;
                    /** @description A positive decimal string, within the asset decimals (ETH 18, XRP 6) */
                    qty: string;
                    /** @description XRPL account sequence to use */
                    sequence?: string;
                    /** @description ETH or an ERC-20 symbol (with contract) for EVM wallets; XRP for XRPL wallets */
                    symbol: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "idempotent-replayed": components["headers"]["IdempotentReplayed"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "transactionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "type": "string",
                     *       "status": "pending",
                     *       "symbol": "ETH",
                     *       "qty": "10.5",
                     *       "destinationAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "contract": "string",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "failureReason": "string",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["CustodyTransaction"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyAWebhooksByTenantId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "string",
                 *       "type": "string",
                 *       "data": {}
                 *     }
                 */
                "application/json": {
                    data: unknown;
                    id: string;
                    type: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        received: true;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyBMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *       "message": "Done",
                 *       "signedChallenge": {
                 *         "challengeIdentifier": "string",
                 *         "firstFactor": {
                 *           "kind": "Key",
                 *           "credentialAssertion": {
                 *             "credId": "c2FtcGxl",
                 *             "clientData": "c2FtcGxl",
                 *             "signature": "c2FtcGxl"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The wallet's EVM address (any case) */
                    address: string;
                    /** @description The text to sign (UTF-8), as EIP-191 personal_sign */
                    message: string;
                    signedChallenge: components["schemas"]["CustodyBSignedChallenge"];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "signatureId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "signature": {
                     *         "r": "string",
                     *         "s": "string",
                     *         "recid": 0,
                     *         "encoded": "string"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CustodyBSignature"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyBMessageChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *       "message": "Done"
                 *     }
                 */
                "application/json": {
                    /** @description The wallet's EVM address (any case) */
                    address: string;
                    /** @description The text to sign (UTF-8), as EIP-191 personal_sign */
                    message: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "challenge": "string",
                     *       "challengeIdentifier": "string",
                     *       "allowCredentials": {
                     *         "key": [
                     *           {
                     *             "type": "public-key",
                     *             "id": "string"
                     *           }
                     *         ],
                     *         "webauthn": [
                     *           {
                     *             "type": "public-key",
                     *             "id": "string"
                     *           }
                     *         ]
                     *       },
                     *       "supportedCredentialKinds": [
                     *         {
                     *           "kind": "string",
                     *           "factor": "string",
                     *           "requiresSecondFactor": true
                     *         }
                     *       ],
                     *       "userVerification": "string",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "request": {
                     *         "method": "string",
                     *         "path": "string",
                     *         "body": {}
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CustodyBChallenge"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyBMessageEip712Challenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *       "typedData": {
                 *         "domain": {
                 *           "name": "Example",
                 *           "version": "string",
                 *           "chainId": 1,
                 *           "verifyingContract": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *           "salt": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658"
                 *         },
                 *         "types": {},
                 *         "primaryType": "string",
                 *         "message": {}
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The wallet's EVM address (any case) */
                    address: string;
                    typedData: components["schemas"]["Eip712TypedData"];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "challenge": "string",
                     *       "challengeIdentifier": "string",
                     *       "allowCredentials": {
                     *         "key": [
                     *           {
                     *             "type": "public-key",
                     *             "id": "string"
                     *           }
                     *         ],
                     *         "webauthn": [
                     *           {
                     *             "type": "public-key",
                     *             "id": "string"
                     *           }
                     *         ]
                     *       },
                     *       "supportedCredentialKinds": [
                     *         {
                     *           "kind": "string",
                     *           "factor": "string",
                     *           "requiresSecondFactor": true
                     *         }
                     *       ],
                     *       "userVerification": "string",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "request": {
                     *         "method": "string",
                     *         "path": "string",
                     *         "body": {}
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CustodyBChallenge"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyBMessageEip712Sign: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *       "typedData": {
                 *         "domain": {
                 *           "name": "Example",
                 *           "version": "string",
                 *           "chainId": 1,
                 *           "verifyingContract": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *           "salt": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658"
                 *         },
                 *         "types": {},
                 *         "primaryType": "string",
                 *         "message": {}
                 *       },
                 *       "signedChallenge": {
                 *         "challengeIdentifier": "string",
                 *         "firstFactor": {
                 *           "kind": "Key",
                 *           "credentialAssertion": {
                 *             "credId": "c2FtcGxl",
                 *             "clientData": "c2FtcGxl",
                 *             "signature": "c2FtcGxl"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The wallet's EVM address (any case) */
                    address: string;
                    signedChallenge: components["schemas"]["CustodyBSignedChallenge"];
                    typedData: components["schemas"]["Eip712TypedData"];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "signatureId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "signature": {
                     *         "r": "string",
                     *         "s": "string",
                     *         "recid": 0,
                     *         "encoded": "string"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CustodyBSignature"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyBRawTransactionChallenge: {
        parameters: {
            query: {
                /** @description The wallet's address: EVM (any case) or XRPL classic */
                address: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "transaction": "0x"
                 *     }
                 */
                "application/json": {
                    /** @description The unsigned serialized transaction, hex: EVM (EIP-1559, EIP-2930 or legacy), or XRPL (the binary codec's encoding, with Sequence and Fee, of the wallet's Account) */
                    transaction: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "challenge": "string",
                     *       "challengeIdentifier": "string",
                     *       "allowCredentials": {
                     *         "key": [
                     *           {
                     *             "type": "public-key",
                     *             "id": "string"
                     *           }
                     *         ],
                     *         "webauthn": [
                     *           {
                     *             "type": "public-key",
                     *             "id": "string"
                     *           }
                     *         ]
                     *       },
                     *       "supportedCredentialKinds": [
                     *         {
                     *           "kind": "string",
                     *           "factor": "string",
                     *           "requiresSecondFactor": true
                     *         }
                     *       ],
                     *       "userVerification": "string",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "request": {
                     *         "method": "string",
                     *         "path": "string",
                     *         "body": {}
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CustodyBChallenge"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyBRawTransactionComplete: {
        parameters: {
            query: {
                /** @description The wallet's address: EVM (any case) or XRPL classic */
                address: string;
            };
            header?: {
                /**
                 * @description Makes a retry safe: the same key replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED
                 * @example 4c1f2a8e-transfer-001
                 */
                "idempotency-key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "transaction": "0x",
                 *       "signedChallenge": {
                 *         "challengeIdentifier": "string",
                 *         "firstFactor": {
                 *           "kind": "Key",
                 *           "credentialAssertion": {
                 *             "credId": "c2FtcGxl",
                 *             "clientData": "c2FtcGxl",
                 *             "signature": "c2FtcGxl"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    signedChallenge: components["schemas"]["CustodyBSignedChallenge"];
                    /** @description The unsigned serialized transaction, hex: EVM (EIP-1559, EIP-2930 or legacy), or XRPL (the binary codec's encoding, with Sequence and Fee, of the wallet's Account) */
                    transaction: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "idempotent-replayed": components["headers"]["IdempotentReplayed"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "transactionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "txHash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": {
                        address: string;
                        status: string;
                        transactionId: string;
                        txHash: string;
                        /** Format: uuid */
                        walletId: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyBUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "firstFactorCredential": {
                 *         "credentialKind": "Key",
                 *         "credentialInfo": {
                 *           "credId": "c2FtcGxl",
                 *           "clientData": "c2FtcGxl",
                 *           "attestationData": "c2FtcGxl"
                 *         },
                 *         "credentialName": "string"
                 *       }
                 *     }
                 */
                "application/json": {
                    firstFactorCredential: {
                        credentialInfo: {
                            /** @description Key: base64url JSON {publicKey (PEM), signature (over the client data)}; Fido2: the attestation object */
                            attestationData: string;
                            /** @description Base64url JSON {type: "key.create" | "webauthn.create", challenge, origin, crossOrigin} */
                            clientData: string;
                            /** @description The credential id */
                            credId: string;
                        };
                        credentialKind: "Key" | "Fido2";
                        credentialName?: string;
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "providerUserId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "username": "string",
                     *       "credential": {
                     *         "uuid": "string",
                     *         "kind": "string",
                     *         "name": "Example"
                     *       },
                     *       "registeredAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        credential: {
                            kind: string;
                            name: string;
                            uuid: string;
                        };
                        providerUserId: string;
                        /** Format: date-time */
                        registeredAt: string;
                        /** Format: uuid */
                        userId: string;
                        username: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getCustodyBUsersAuthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "token": "c2FtcGxlLXRva2Vu"
                     *     }
                     */
                    "application/json": {
                        /** @description The provider's token for the caller (delegated login) */
                        token: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getCustodyBUsersChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "challenge": "string",
                     *       "user": {
                     *         "id": "string",
                     *         "displayName": "string",
                     *         "name": "Example"
                     *       },
                     *       "rp": {
                     *         "id": "string",
                     *         "name": "Example"
                     *       },
                     *       "supportedCredentialKinds": {
                     *         "firstFactor": [
                     *           "string"
                     *         ],
                     *         "secondFactor": [
                     *           "string"
                     *         ]
                     *       },
                     *       "authenticatorSelection": {},
                     *       "attestation": "string",
                     *       "pubKeyCredParams": [
                     *         {
                     *           "type": "public-key",
                     *           "alg": 1
                     *         }
                     *       ],
                     *       "excludeCredentials": [
                     *         {
                     *           "type": "public-key",
                     *           "id": "string"
                     *         }
                     *       ],
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        attestation: string;
                        authenticatorSelection: {
                            [key: string]: unknown;
                        };
                        /** @description Sign it with the new credential (client data type key.create, or a WebAuthn create) */
                        challenge: string;
                        excludeCredentials: {
                            id: string;
                            /** @enum {string} */
                            type: "public-key";
                        }[];
                        /** Format: date-time */
                        expiresAt: string;
                        pubKeyCredParams: {
                            alg: number;
                            /** @enum {string} */
                            type: "public-key";
                        }[];
                        rp?: {
                            id: string;
                            name: string;
                        };
                        supportedCredentialKinds: {
                            firstFactor: string[];
                            secondFactor: string[];
                        };
                        user: {
                            displayName: string;
                            id: string;
                            name: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getCustodyBWallets: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "kind": "evm-eoa",
                     *           "chain": "evm",
                     *           "network": "sepolia",
                     *           "chainId": 1,
                     *           "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "details": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["WalletList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postCustodyBWallets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "network": "abc123",
                 *       "signedChallenge": {
                 *         "challengeIdentifier": "string",
                 *         "firstFactor": {
                 *           "kind": "Key",
                 *           "credentialAssertion": {
                 *             "credId": "c2FtcGxl",
                 *             "clientData": "c2FtcGxl",
                 *             "signature": "c2FtcGxl"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The provider's network name (e.g. EthereumSepolia, or XrpLedger / XrpLedgerTestnet for an XRPL wallet); default: the tenant's setting, else EthereumSepolia */
                    network?: string;
                    signedChallenge: components["schemas"]["CustodyBSignedChallenge"];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "evm-eoa",
                     *       "chain": "evm",
                     *       "network": "sepolia",
                     *       "chainId": 1,
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "details": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getCustodyBWalletsChallenge: {
        parameters: {
            query?: {
                /** @description The provider's network name (e.g. EthereumSepolia, or XrpLedger / XrpLedgerTestnet for an XRPL wallet); default: the tenant's setting, else EthereumSepolia */
                network?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "challenge": "string",
                     *       "challengeIdentifier": "string",
                     *       "allowCredentials": {
                     *         "key": [
                     *           {
                     *             "type": "public-key",
                     *             "id": "string"
                     *           }
                     *         ],
                     *         "webauthn": [
                     *           {
                     *             "type": "public-key",
                     *             "id": "string"
                     *           }
                     *         ]
                     *       },
                     *       "supportedCredentialKinds": [
                     *         {
                     *           "kind": "string",
                     *           "factor": "string",
                     *           "requiresSecondFactor": true
                     *         }
                     *       ],
                     *       "userVerification": "string",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "request": {
                     *         "method": "string",
                     *         "path": "string",
                     *         "body": {}
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CustodyBChallenge"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getEntities: {
        parameters: {
            query?: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                /** @description Only this user's entities (API key or admin; a user may name only themself) */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "legalName": "string",
                     *           "type": "company",
                     *           "jurisdiction": "string",
                     *           "registrationNumber": "string",
                     *           "lei": "string",
                     *           "address": {
                     *             "line1": "example",
                     *             "line2": "example",
                     *             "city": "example",
                     *             "region": "string",
                     *             "postalCode": "EC1A 1BB",
                     *             "country": "US"
                     *           },
                     *           "metadata": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z",
                     *           "permissions": [
                     *             "owner"
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Entity"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEntities: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "legalName": "example",
                 *       "type": "company",
                 *       "jurisdiction": "US",
                 *       "registrationNumber": "example",
                 *       "lei": "5493001KJTIIGC8Y1R12",
                 *       "address": {
                 *         "line1": "example",
                 *         "line2": "example",
                 *         "city": "example",
                 *         "region": "string",
                 *         "postalCode": "EC1A 1BB",
                 *         "country": "US"
                 *       },
                 *       "metadata": {},
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                 *     }
                 */
                "application/json": {
                    address: components["schemas"]["PostalAddress"];
                    /** @description Jurisdiction of registration (ISO 3166-1 alpha-2) */
                    jurisdiction: string;
                    legalName: string;
                    /** @description ISO 17442 LEI; the check digits are verified */
                    lei?: string;
                    /** @description Free-form JSON object, at most 16 KiB serialized and 5 levels deep */
                    metadata?: {
                        [key: string]: unknown;
                    };
                    registrationNumber: string;
                    /** @enum {unknown} */
                    type: "company" | "fund" | "trust" | "partnership" | "other";
                    /**
                     * Format: uuid
                     * @description With an API key or admin token: the user who becomes the owner (required)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "legalName": "string",
                     *       "type": "company",
                     *       "jurisdiction": "string",
                     *       "registrationNumber": "string",
                     *       "lei": "string",
                     *       "address": {
                     *         "line1": "example",
                     *         "line2": "example",
                     *         "city": "example",
                     *         "region": "string",
                     *         "postalCode": "EC1A 1BB",
                     *         "country": "US"
                     *       },
                     *       "metadata": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "permissions": [
                     *         "owner"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Entity"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteEntitiesByEntityIdUsersByTargetUserIdPermissionsByPermission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                entityId: string;
                permission: "owner" | "view" | "manage_entity" | "manage_users" | "manage_payment_methods" | "invest" | "sign_documents";
                targetUserId: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada Lovelace",
                     *       "permissions": [
                     *         "owner"
                     *       ],
                     *       "addedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["EntityMember"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEntitiesById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "legalName": "string",
                     *       "type": "company",
                     *       "jurisdiction": "string",
                     *       "registrationNumber": "string",
                     *       "lei": "string",
                     *       "address": {
                     *         "line1": "example",
                     *         "line2": "example",
                     *         "city": "example",
                     *         "region": "string",
                     *         "postalCode": "EC1A 1BB",
                     *         "country": "US"
                     *       },
                     *       "metadata": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "permissions": [
                     *         "owner"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Entity"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEntitiesByIdBusinessProfileA: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "business-profile-a",
                     *       "providerBusinessId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "status": "submitting",
                     *       "tasks": [
                     *         {
                     *           "key": "string",
                     *           "category": "string",
                     *           "label": "Operating account",
                     *           "status": "success",
                     *           "message": "Done"
                     *         }
                     *       ],
                     *       "tin": "string",
                     *       "failure": "string",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BusinessProfile"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEntitiesByIdBusinessProfileA: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "tin": "12-3456789",
                 *       "people": [
                 *         {
                 *           "name": "example",
                 *           "titles": [
                 *             "string"
                 *           ]
                 *         }
                 *       ],
                 *       "website": "https://app.example.com/return"
                 *     }
                 */
                "application/json": {
                    /** @description Officers and owners */
                    people?: {
                        name: string;
                        titles?: string[];
                    }[];
                    /** @description US EIN, nine digits (12-3456789); sealed at rest, never answered in full */
                    tin: string;
                    /** Format: uri */
                    website?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "business-profile-a",
                     *       "providerBusinessId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "status": "submitting",
                     *       "tasks": [
                     *         {
                     *           "key": "string",
                     *           "category": "string",
                     *           "label": "Operating account",
                     *           "status": "success",
                     *           "message": "Done"
                     *         }
                     *       ],
                     *       "tin": "string",
                     *       "failure": "string",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BusinessProfile"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getEntitiesByIdManualPaymentMethods: {
        parameters: {
            query?: {
                includeArchived?: boolean;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "kind": "bank_wire",
                     *           "label": "Operating account",
                     *           "currency": "USD",
                     *           "details": {},
                     *           "masked": true,
                     *           "archived": true,
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PaymentMethod"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEntitiesByIdManualPaymentMethods: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description A bank wire (IBAN or account number, BIC), a US ACH account, or a crypto address */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "bank_wire",
                 *       "label": "Operating account",
                 *       "details": {
                 *         "accountHolderName": "example",
                 *         "iban": "stringxxxxxxxxx",
                 *         "accountNumber": "GB33BUKB20201555555555",
                 *         "routingNumber": "011000015",
                 *         "bic": "stringxx",
                 *         "bankName": "example",
                 *         "bankAddress": "example",
                 *         "currency": "USD"
                 *       }
                 *     }
                 */
                "application/json": {
                    details: {
                        accountHolderName: string;
                        /** @description Account number where there is no IBAN; sealed at rest */
                        accountNumber?: string;
                        bankAddress?: string;
                        bankName: string;
                        /** @description SWIFT/BIC (ISO 9362) */
                        bic: string;
                        /** @description ISO 4217 currency code */
                        currency: string;
                        /** @description IBAN (checksum verified); sealed at rest. Give iban or accountNumber */
                        iban?: string;
                        /** @description ABA routing number (nine digits, checksum verified) */
                        routingNumber?: string;
                    };
                    /** @enum {string} */
                    kind: "bank_wire";
                    label?: string;
                } | {
                    details: {
                        accountHolderName: string;
                        /** @description US account number; sealed at rest */
                        accountNumber: string;
                        /** @enum {unknown} */
                        accountType: "checking" | "savings";
                        bankName: string;
                        /** @enum {string} */
                        currency?: "USD";
                        /** @description ABA routing number (nine digits, checksum verified) */
                        routingNumber: string;
                    };
                    /** @enum {string} */
                    kind: "ach";
                    label?: string;
                } | {
                    details: {
                        /** @description Checked for its chain: EIP-55 (evm), classic address (xrpl), mainnet (bitcoin) */
                        address: string;
                        /** @description What is paid to the address, e.g. USDC, XRP, BTC */
                        asset: string;
                        /** @enum {unknown} */
                        chain: "evm" | "xrpl" | "bitcoin";
                        /** @description XRPL only */
                        destinationTag?: string;
                    };
                    /** @enum {string} */
                    kind: "crypto";
                    label?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "bank_wire",
                     *       "label": "Operating account",
                     *       "currency": "USD",
                     *       "details": {},
                     *       "masked": true,
                     *       "archived": true,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["PaymentMethod"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEntitiesByIdManualPaymentMethodsByMethodId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                methodId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "bank_wire",
                     *       "label": "Operating account",
                     *       "currency": "USD",
                     *       "details": {},
                     *       "masked": true,
                     *       "archived": true,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["PaymentMethod"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    patchEntitiesByIdManualPaymentMethodsByMethodId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                methodId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "label": "Operating account",
                 *       "archived": true,
                 *       "details": {
                 *         "accountHolderName": "example",
                 *         "iban": "stringxxxxxxxxx",
                 *         "accountNumber": "GB33BUKB20201555555555",
                 *         "routingNumber": "011000015",
                 *         "bic": "stringxx",
                 *         "bankName": "example",
                 *         "bankAddress": "example",
                 *         "currency": "USD"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description Archived methods stay readable; there is no deletion */
                    archived?: boolean;
                    /** @description A complete replacement, of the same kind */
                    details?: {
                        accountHolderName: string;
                        /** @description Account number where there is no IBAN; sealed at rest */
                        accountNumber?: string;
                        bankAddress?: string;
                        bankName: string;
                        /** @description SWIFT/BIC (ISO 9362) */
                        bic: string;
                        /** @description ISO 4217 currency code */
                        currency: string;
                        /** @description IBAN (checksum verified); sealed at rest. Give iban or accountNumber */
                        iban?: string;
                        /** @description ABA routing number (nine digits, checksum verified) */
                        routingNumber?: string;
                    } | {
                        accountHolderName: string;
                        /** @description US account number; sealed at rest */
                        accountNumber: string;
                        /** @enum {unknown} */
                        accountType: "checking" | "savings";
                        bankName: string;
                        /** @enum {string} */
                        currency?: "USD";
                        /** @description ABA routing number (nine digits, checksum verified) */
                        routingNumber: string;
                    } | {
                        /** @description Checked for its chain: EIP-55 (evm), classic address (xrpl), mainnet (bitcoin) */
                        address: string;
                        /** @description What is paid to the address, e.g. USDC, XRP, BTC */
                        asset: string;
                        /** @enum {unknown} */
                        chain: "evm" | "xrpl" | "bitcoin";
                        /** @description XRPL only */
                        destinationTag?: string;
                    };
                    label?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "bank_wire",
                     *       "label": "Operating account",
                     *       "currency": "USD",
                     *       "details": {},
                     *       "masked": true,
                     *       "archived": true,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["PaymentMethod"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    putEntitiesByIdMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "metadata": {}
                 *     }
                 */
                "application/json": {
                    /** @description Free-form JSON object, at most 16 KiB serialized and 5 levels deep */
                    metadata: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "legalName": "string",
                     *       "type": "company",
                     *       "jurisdiction": "string",
                     *       "registrationNumber": "string",
                     *       "lei": "string",
                     *       "address": {
                     *         "line1": "example",
                     *         "line2": "example",
                     *         "city": "example",
                     *         "region": "string",
                     *         "postalCode": "EC1A 1BB",
                     *         "country": "US"
                     *       },
                     *       "metadata": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "permissions": [
                     *         "owner"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Entity"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEntitiesByIdUsers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "email": "ada@example.com",
                     *           "fullName": "Ada Lovelace",
                     *           "permissions": [
                     *             "owner"
                     *           ],
                     *           "addedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["EntityMember"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEntitiesByIdUsers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "permissions": [
                 *         "owner"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description Default ["view"] */
                    permissions?: ("owner" | "view" | "manage_entity" | "manage_users" | "manage_payment_methods" | "invest" | "sign_documents")[];
                    /** Format: uuid */
                    userId: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada Lovelace",
                     *       "permissions": [
                     *         "owner"
                     *       ],
                     *       "addedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["EntityMember"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteEntitiesByIdUsersByTargetUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                targetUserId: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "removed": true
                     *     }
                     */
                    "application/json": {
                        /** Format: uuid */
                        entityId: string;
                        /** @enum {boolean} */
                        removed: true;
                        /** Format: uuid */
                        userId: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEntitiesByIdUsersByTargetUserIdPermissions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                targetUserId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "permission": "owner"
                 *     }
                 */
                "application/json": {
                    /** @enum {unknown} */
                    permission: "owner" | "view" | "manage_entity" | "manage_users" | "manage_payment_methods" | "invest" | "sign_documents";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada Lovelace",
                     *       "permissions": [
                     *         "owner"
                     *       ],
                     *       "addedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["EntityMember"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEventEndpoints: {
        parameters: {
            query?: {
                /** @description Keyset cursor: return rows after this id (stays fast on large tables) */
                afterId?: string;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "url": "https://app.example.com/return",
                     *           "description": "Example description",
                     *           "types": [
                     *             "string"
                     *           ],
                     *           "enabled": true,
                     *           "disabledReason": "string",
                     *           "disabledAt": "2026-01-15T09:30:00.000Z",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["EventEndpoint"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEventEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://app.example.com/return",
                 *       "types": [
                 *         "user.created"
                 *       ],
                 *       "description": "Example description",
                 *       "enabled": true
                 *     }
                 */
                "application/json": {
                    description?: string;
                    /** @default true */
                    enabled?: boolean;
                    /** @description Event types delivered here; empty = every type */
                    types?: ("user.created" | "user.updated" | "user.email_verified" | "kyc.created" | "kyc.updated" | "kyc.started" | "kyc.submitted" | "kyc.review" | "kyc.approved" | "kyc.declined" | "kyc.resubmission_requested" | "kyc.expired" | "kyc.abandoned" | "accreditation.submitted" | "accreditation.decided" | "wallet.registered" | "document.uploaded" | "document.signed" | "transfer.submitted" | "transfer.completed" | "transfer.failed" | "custody.vault_created" | "entity.created" | "entity.updated" | "entity.member_added" | "entity.member_removed" | "entity.permission_granted" | "entity.permission_revoked" | "entity.payment_method_added" | "entity.payment_method_updated" | "entity.business_profile_submitted" | "entity.business_profile_updated" | "bank_link.item_linked" | "bank_link.item_removed" | "bank_link.item_updated" | "bank_link.originator_updated")[];
                    /** @description https to a public address (EVENTS_ALLOW_PRIVATE_URLS=on admits http and private addresses in tests) */
                    url: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "url": "https://app.example.com/return",
                     *       "description": "Example description",
                     *       "types": [
                     *         "string"
                     *       ],
                     *       "enabled": true,
                     *       "disabledReason": "string",
                     *       "disabledAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "secret": "string"
                     *     }
                     */
                    "application/json": components["schemas"]["EventEndpoint"] & {
                        /** @description The whsec_ signing secret, shown only here */
                        secret: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEventEndpointsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "url": "https://app.example.com/return",
                     *       "description": "Example description",
                     *       "types": [
                     *         "string"
                     *       ],
                     *       "enabled": true,
                     *       "disabledReason": "string",
                     *       "disabledAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["EventEndpoint"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteEventEndpointsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    patchEventEndpointsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "url": "https://app.example.com/return",
                 *       "types": [
                 *         "user.created"
                 *       ],
                 *       "description": "Example description",
                 *       "enabled": true,
                 *       "disabledReason": "string"
                 *     }
                 */
                "application/json": {
                    description?: string | null;
                    /** @description Why, with enabled: false */
                    disabledReason?: string;
                    enabled?: boolean;
                    /** @description Event types delivered here; empty = every type */
                    types?: ("user.created" | "user.updated" | "user.email_verified" | "kyc.created" | "kyc.updated" | "kyc.started" | "kyc.submitted" | "kyc.review" | "kyc.approved" | "kyc.declined" | "kyc.resubmission_requested" | "kyc.expired" | "kyc.abandoned" | "accreditation.submitted" | "accreditation.decided" | "wallet.registered" | "document.uploaded" | "document.signed" | "transfer.submitted" | "transfer.completed" | "transfer.failed" | "custody.vault_created" | "entity.created" | "entity.updated" | "entity.member_added" | "entity.member_removed" | "entity.permission_granted" | "entity.permission_revoked" | "entity.payment_method_added" | "entity.payment_method_updated" | "entity.business_profile_submitted" | "entity.business_profile_updated" | "bank_link.item_linked" | "bank_link.item_removed" | "bank_link.item_updated" | "bank_link.originator_updated")[];
                    /** @description https to a public address (EVENTS_ALLOW_PRIVATE_URLS=on admits http and private addresses in tests) */
                    url?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "url": "https://app.example.com/return",
                     *       "description": "Example description",
                     *       "types": [
                     *         "string"
                     *       ],
                     *       "enabled": true,
                     *       "disabledReason": "string",
                     *       "disabledAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["EventEndpoint"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEventEndpointsByIdDeliveries: {
        parameters: {
            query?: {
                /** @description Keyset cursor of a newest-first list: return rows older than this id (the last id of the previous page) */
                beforeId?: string;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                status?: "pending" | "delivered" | "failed";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "eventId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "eventType": "string",
                     *           "status": "pending",
                     *           "attempts": 0,
                     *           "lastStatusCode": 1,
                     *           "lastError": "string",
                     *           "lastAttemptAt": "2026-01-15T09:30:00.000Z",
                     *           "nextAttemptAt": "2026-01-15T09:30:00.000Z",
                     *           "queuedAt": "2026-01-15T09:30:00.000Z",
                     *           "deliveredAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: {
                            /** @description Attempts made so far (a retry by id keeps counting; a replay starts again at 0) */
                            attempts: number;
                            deliveredAt: string | null;
                            /**
                             * Format: uuid
                             * @description The event id: the webhook-id of every attempt
                             */
                            eventId: string;
                            eventType: string | null;
                            lastAttemptAt: string | null;
                            lastError: string | null;
                            lastStatusCode: number | null;
                            nextAttemptAt: string | null;
                            /**
                             * Format: date-time
                             * @description When it was queued (or queued again by a replay or a retry); the retry window counts from here
                             */
                            queuedAt: string;
                            /** @enum {unknown} */
                            status: "pending" | "delivered" | "failed";
                        }[];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEventEndpointsByIdDeliveriesByEventIdRetry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
                id: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "eventId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "eventType": "string",
                     *       "status": "pending",
                     *       "attempts": 0,
                     *       "lastStatusCode": 1,
                     *       "lastError": "string",
                     *       "lastAttemptAt": "2026-01-15T09:30:00.000Z",
                     *       "nextAttemptAt": "2026-01-15T09:30:00.000Z",
                     *       "queuedAt": "2026-01-15T09:30:00.000Z",
                     *       "deliveredAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description Attempts made so far (a retry by id keeps counting; a replay starts again at 0) */
                        attempts: number;
                        deliveredAt: string | null;
                        /**
                         * Format: uuid
                         * @description The event id: the webhook-id of every attempt
                         */
                        eventId: string;
                        eventType: string | null;
                        lastAttemptAt: string | null;
                        lastError: string | null;
                        lastStatusCode: number | null;
                        nextAttemptAt: string | null;
                        /**
                         * Format: date-time
                         * @description When it was queued (or queued again by a replay or a retry); the retry window counts from here
                         */
                        queuedAt: string;
                        /** @enum {unknown} */
                        status: "pending" | "delivered" | "failed";
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEventEndpointsByIdReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "from": "2026-01-15T09:30:00.000Z",
                 *       "to": "2026-01-15T09:30:00.000Z",
                 *       "fromSeq": 0,
                 *       "toSeq": 0
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: date-time
                     * @description Events created at or after this time
                     */
                    from?: string;
                    /** @description Events at or after this stream seq (the seq of GET /events) */
                    fromSeq?: number;
                    /**
                     * Format: date-time
                     * @description Events created at or before this time
                     */
                    to?: string;
                    /** @description Events at or before this stream seq */
                    toSeq?: number;
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "queued": 0
                     *     }
                     */
                    "application/json": {
                        queued: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEventEndpointsByIdRotateSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "secret": "string",
                     *       "previousSecretExpiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /**
                         * Format: date-time
                         * @description Until then the previous secret signs too
                         */
                        previousSecretExpiresAt: string;
                        /** @description The new whsec_ signing secret, shown only here */
                        secret: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEventEndpointsByIdTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "eventId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "eventType": "string",
                     *       "status": "pending",
                     *       "attempts": 0,
                     *       "lastStatusCode": 1,
                     *       "lastError": "string",
                     *       "lastAttemptAt": "2026-01-15T09:30:00.000Z",
                     *       "nextAttemptAt": "2026-01-15T09:30:00.000Z",
                     *       "queuedAt": "2026-01-15T09:30:00.000Z",
                     *       "deliveredAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description Attempts made so far (a retry by id keeps counting; a replay starts again at 0) */
                        attempts: number;
                        deliveredAt: string | null;
                        /**
                         * Format: uuid
                         * @description The event id: the webhook-id of every attempt
                         */
                        eventId: string;
                        eventType: string | null;
                        lastAttemptAt: string | null;
                        lastError: string | null;
                        lastStatusCode: number | null;
                        nextAttemptAt: string | null;
                        /**
                         * Format: date-time
                         * @description When it was queued (or queued again by a replay or a retry); the retry window counts from here
                         */
                        queuedAt: string;
                        /** @enum {unknown} */
                        status: "pending" | "delivered" | "failed";
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEvents: {
        parameters: {
            query?: {
                /** @description Cursor: a seq (the `next` of the previous page) or an event id; absent = from the start */
                after?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "seq": 1,
                     *           "type": "string",
                     *           "timestamp": "2026-01-15T09:30:00.000Z",
                     *           "data": {}
                     *         }
                     *       ],
                     *       "next": "string",
                     *       "hasMore": true
                     *     }
                     */
                    "application/json": {
                        data: {
                            data: {
                                [key: string]: unknown;
                            };
                            /**
                             * Format: uuid
                             * @description The event id; the webhook-id of its deliveries
                             */
                            id: string;
                            /** @description The event's position in the tenant's stream */
                            seq: number;
                            /** Format: date-time */
                            timestamp: string;
                            type: string;
                        }[];
                        /** @description A full page: more may follow at once */
                        hasMore: boolean;
                        /** @description Pass as `after` to read on; the same cursor when the page is empty */
                        next: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEvmEoas: {
        parameters: {
            query?: {
                /** @description Keyset cursor: return rows after this id (stays fast on large tables) */
                afterId?: string;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                /** @description Required with an API key or an admin token */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "kind": "evm-eoa",
                     *           "chain": "evm",
                     *           "network": "sepolia",
                     *           "chainId": 1,
                     *           "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "details": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["WalletList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEvmEoas: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "message": "Done",
                 *       "signature": "0xdeadbeef"
                 *     }
                 */
                "application/json": {
                    /** @description The EIP-4361 message, as signed */
                    message: string;
                    /** @description personal_sign (EIP-191) signature: 65 bytes for a key; any length for a contract wallet (EIP-1271, ERC-6492) */
                    signature: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "evm-eoa",
                     *       "chain": "evm",
                     *       "network": "sepolia",
                     *       "chainId": 1,
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "details": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEvmEoasChallenge: {
        parameters: {
            query?: {
                /** @description EVM address (any case; answered EIP-55) */
                address?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "domain": "string",
                     *       "uri": "https://app.example.com/return",
                     *       "version": "1",
                     *       "chainId": 1,
                     *       "nonce": "string",
                     *       "issuedAt": "2026-01-15T09:30:00.000Z",
                     *       "expirationTime": "2026-01-15T09:30:00.000Z",
                     *       "statement": "string",
                     *       "message": "Done"
                     *     }
                     */
                    "application/json": {
                        chainId: number;
                        /** @description RFC 3986 authority the message must name: the tenant's app host, else this service's */
                        domain: string;
                        /** Format: date-time */
                        expirationTime: string;
                        /** Format: date-time */
                        issuedAt: string;
                        message: string | null;
                        /** @description Single use; valid 10 minutes; bound to the calling user */
                        nonce: string;
                        statement: string;
                        uri: string;
                        /** @enum {string} */
                        version: "1";
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getEvmVaults: {
        parameters: {
            query?: {
                /** @description An address of one of the vault wallets (EVM any case, or XRPL) */
                address?: string;
                /** @description The vault id */
                id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "name": "Example",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "wallets": [
                     *         {
                     *           "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "kind": "evm-eoa",
                     *           "chain": "evm",
                     *           "network": "sepolia",
                     *           "chainId": 1,
                     *           "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "details": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "createdAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Vault"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postEvmVaults: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "name": "Example",
                 *       "xrplWallet": true
                 *     }
                 */
                "application/json": {
                    /** @description A name for the vault (default "vault") */
                    name?: string;
                    /**
                     * Format: uuid
                     * @description The owner; required with an API key, defaults to the caller with a bearer token
                     */
                    userId?: string;
                    /** @description Also open an XRPL wallet in the vault (default false) */
                    xrplWallet?: boolean;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "name": "Example",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "wallets": [
                     *         {
                     *           "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "kind": "evm-eoa",
                     *           "chain": "evm",
                     *           "network": "sepolia",
                     *           "chainId": 1,
                     *           "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "details": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "createdAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Vault"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getKyc: {
        parameters: {
            query: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                userId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "provider": "idv-a",
                     *           "flow": "string",
                     *           "status": "created",
                     *           "sessionUrl": "https://app.example.com/return",
                     *           "reason": "Document expired",
                     *           "firstName": "Ada",
                     *           "lastName": "Lovelace",
                     *           "dateOfBirth": "string",
                     *           "country": "US",
                     *           "documentType": "string",
                     *           "level": "string",
                     *           "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "walletChain": "string",
                     *           "walletVerified": true,
                     *           "expiresAt": "2026-01-15T09:30:00.000Z",
                     *           "decidedAt": "2026-01-15T09:30:00.000Z",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["KycList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postKyc: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "firstName": "Ada",
                 *       "lastName": "Lovelace",
                 *       "callbackUrl": "https://app.example.com/return"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description Where the provider page sends the person when done
                     */
                    callbackUrl?: string;
                    firstName?: string;
                    lastName?: string;
                } | null;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["KycSession"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    patchKycByKycId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kycId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "firstName": "Ada",
                 *       "lastName": "Lovelace",
                 *       "dateOfBirth": "1990-04-12",
                 *       "country": "US",
                 *       "documentType": "string",
                 *       "level": "c2FtcGxlLXRva2Vu",
                 *       "reason": "Document expired"
                 *     }
                 */
                "application/json": {
                    country?: string | null;
                    dateOfBirth?: string | null;
                    documentType?: string | null;
                    firstName?: string | null;
                    lastName?: string | null;
                    /** @description Verification level, e.g. basic, enhanced */
                    level?: string;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "idv-a",
                     *       "flow": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "reason": "Document expired",
                     *       "firstName": "Ada",
                     *       "lastName": "Lovelace",
                     *       "dateOfBirth": "string",
                     *       "country": "US",
                     *       "documentType": "string",
                     *       "level": "string",
                     *       "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "walletChain": "string",
                     *       "walletVerified": true,
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "decidedAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["KycSummary"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    putKycApproveByKycId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kycId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "Document expired",
                 *       "level": "c2FtcGxlLXRva2Vu"
                 *     }
                 */
                "application/json": {
                    /** @description Verification level, e.g. basic, enhanced */
                    level?: string;
                    reason?: string;
                } | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "idv-a",
                     *       "flow": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "reason": "Document expired",
                     *       "firstName": "Ada",
                     *       "lastName": "Lovelace",
                     *       "dateOfBirth": "string",
                     *       "country": "US",
                     *       "documentType": "string",
                     *       "level": "string",
                     *       "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "walletChain": "string",
                     *       "walletVerified": true,
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "decidedAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["KycSummary"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getKycAttempts: {
        parameters: {
            query?: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "provider": "idv-a",
                     *           "flow": "string",
                     *           "status": "created",
                     *           "sessionUrl": "https://app.example.com/return",
                     *           "reason": "Document expired",
                     *           "firstName": "Ada",
                     *           "lastName": "Lovelace",
                     *           "dateOfBirth": "string",
                     *           "country": "US",
                     *           "documentType": "string",
                     *           "level": "string",
                     *           "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "walletChain": "string",
                     *           "walletVerified": true,
                     *           "expiresAt": "2026-01-15T09:30:00.000Z",
                     *           "decidedAt": "2026-01-15T09:30:00.000Z",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["KycList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postKycCallbackIdvADecision: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "pending",
                 *       "verification": {
                 *         "id": "string",
                 *         "status": "approved",
                 *         "vendorData": "string",
                 *         "code": 1,
                 *         "reason": "Document expired",
                 *         "decisionTime": "string",
                 *         "person": {
                 *           "firstName": "Ada",
                 *           "lastName": "Lovelace",
                 *           "dateOfBirth": "string"
                 *         },
                 *         "document": {
                 *           "country": "US",
                 *           "type": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    status: string;
                    verification: {
                        code?: number;
                        decisionTime?: string;
                        document?: {
                            country?: string | null;
                            type?: string | null;
                        };
                        id: string;
                        person?: {
                            dateOfBirth?: string | null;
                            firstName?: string | null;
                            lastName?: string | null;
                        };
                        reason?: string | null;
                        /** @enum {unknown} */
                        status: "approved" | "declined" | "resubmission_requested" | "review" | "expired" | "abandoned";
                        vendorData: string;
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true,
                     *       "applied": true,
                     *       "outcome": "string",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": components["schemas"]["ProviderCallbackOutcome"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postKycCallbackIdvAEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "string",
                 *       "action": "started",
                 *       "vendorData": "string",
                 *       "attemptId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "code": 1
                 *     }
                 */
                "application/json": {
                    /** @enum {unknown} */
                    action: "started" | "submitted";
                    attemptId?: string;
                    code?: number;
                    /** @description Provider session id */
                    id: string;
                    vendorData: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true,
                     *       "applied": true,
                     *       "outcome": "string",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": components["schemas"]["ProviderCallbackOutcome"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postKycCallbackIdvB: {
        parameters: {
            query: {
                tenantId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "eventId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "sessionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "reference": "string",
                 *       "status": "started",
                 *       "reason": "Document expired",
                 *       "person": {
                 *         "firstName": "Ada",
                 *         "lastName": "Lovelace",
                 *         "dateOfBirth": "string"
                 *       },
                 *       "document": {
                 *         "country": "US",
                 *         "type": "string"
                 *       },
                 *       "wallet": {
                 *         "chain": "evm",
                 *         "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *         "signature": "string",
                 *         "publicKey": "string"
                 *       }
                 *     }
                 */
                "application/json": {
                    document?: {
                        country?: string | null;
                        type?: string | null;
                    };
                    eventId: string;
                    person?: {
                        dateOfBirth?: string | null;
                        firstName?: string | null;
                        lastName?: string | null;
                    };
                    reason?: string | null;
                    reference: string;
                    sessionId: string;
                    /** @enum {unknown} */
                    status: "started" | "submitted" | "review" | "approved" | "declined" | "resubmission_requested" | "expired" | "abandoned";
                    wallet?: {
                        address: string;
                        /** @enum {unknown} */
                        chain: "evm" | "xrpl";
                        publicKey?: string;
                        signature: string;
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true,
                     *       "applied": true,
                     *       "outcome": "string",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": components["schemas"]["ProviderCallbackOutcome"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getKycCurrent: {
        parameters: {
            query: {
                kycId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "idv-a",
                     *       "flow": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "reason": "Document expired",
                     *       "firstName": "Ada",
                     *       "lastName": "Lovelace",
                     *       "dateOfBirth": "string",
                     *       "country": "US",
                     *       "documentType": "string",
                     *       "level": "string",
                     *       "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "walletChain": "string",
                     *       "walletVerified": true,
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "decidedAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "history": [
                     *         {
                     *           "action": "transition",
                     *           "from": "string",
                     *           "to": "string",
                     *           "changes": {},
                     *           "actor": {
                     *             "type": "string",
                     *             "id": "string"
                     *           },
                     *           "reason": "Document expired",
                     *           "at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["KycRecord"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getKycCurrentByKycId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kycId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "idv-a",
                     *       "flow": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "reason": "Document expired",
                     *       "firstName": "Ada",
                     *       "lastName": "Lovelace",
                     *       "dateOfBirth": "string",
                     *       "country": "US",
                     *       "documentType": "string",
                     *       "level": "string",
                     *       "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "walletChain": "string",
                     *       "walletVerified": true,
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "decidedAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "history": [
                     *         {
                     *           "action": "transition",
                     *           "from": "string",
                     *           "to": "string",
                     *           "changes": {},
                     *           "actor": {
                     *             "type": "string",
                     *             "id": "string"
                     *           },
                     *           "reason": "Document expired",
                     *           "at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["KycRecord"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getKycIdentityProof: {
        parameters: {
            query: {
                /** @description Field path, e.g. kyc.status */
                path: string;
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "root": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "version": 1,
                     *       "path": "string",
                     *       "value": "string",
                     *       "salt": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "commitment": "string",
                     *       "leafEncoding": [
                     *         "string"
                     *       ],
                     *       "leaf": "string",
                     *       "proof": [
                     *         "string"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description keccak256(abi.encode(bytes32 salt, string value)), the second item of the leaf */
                        commitment: string;
                        /** @description keccak256(keccak256(abi.encode(string path, bytes32 commitment))), as MerkleProof.verify takes it */
                        leaf: string;
                        leafEncoding: string[];
                        path: string;
                        proof: string[];
                        root: string;
                        salt: string;
                        value: string;
                        version: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getKycIdentityRoot: {
        parameters: {
            query?: {
                /** @description With an API key or admin token: whose root; a plain user gets their own */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "root": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "version": 1,
                     *       "leafEncoding": [
                     *         "string"
                     *       ],
                     *       "computedAt": "2026-01-15T09:30:00.000Z",
                     *       "paths": [
                     *         "string"
                     *       ],
                     *       "history": [
                     *         {
                     *           "version": 1,
                     *           "root": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *           "computedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** Format: date-time */
                        computedAt: string;
                        /** @description Every root of the user, newest first (at most 100) */
                        history: {
                            /** Format: date-time */
                            computedAt: string;
                            root: string;
                            version: number;
                        }[];
                        /** @description StandardMerkleTree leaf types: ['string', 'bytes32'] */
                        leafEncoding: string[];
                        /** @description The fields that are leaves of this root */
                        paths: string[];
                        root: string;
                        version: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postKycIdvASession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "firstName": "Ada",
                 *       "lastName": "Lovelace",
                 *       "callbackUrl": "https://app.example.com/return"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description Where the provider page sends the person when done
                     */
                    callbackUrl?: string;
                    firstName?: string;
                    lastName?: string;
                } | null;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["KycSession"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postKycIdvBRegularChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["KycSession"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postKycIdvBWeb3Challenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *       "chain": "evm",
                 *       "chainId": 1
                 *     }
                 */
                "application/json": {
                    address: string;
                    /** @enum {unknown} */
                    chain: "evm" | "xrpl";
                    /** @description EVM chain id, default 1 */
                    chainId?: number;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "chain": "string",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "message": "Done",
                     *       "nonce": "string"
                     *     }
                     */
                    "application/json": {
                        address: string;
                        chain: string;
                        /** Format: date-time */
                        expiresAt: string;
                        /** Format: uuid */
                        kycId: string;
                        /** @description Text to sign: EIP-4361 for EVM; for XRPL, sign its UTF-8 bytes with the account key */
                        message: string;
                        nonce: string;
                        provider: string;
                        sessionUrl: string | null;
                        /** @enum {unknown} */
                        status: "created" | "started" | "submitted" | "review" | "approved" | "declined" | "resubmission_requested" | "expired" | "abandoned";
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    postKycKyc: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "provider": "idv-a",
                 *       "firstName": "Ada",
                 *       "lastName": "Lovelace",
                 *       "country": "US",
                 *       "level": "c2FtcGxlLXRva2Vu"
                 *     }
                 */
                "application/json": {
                    /** @description ISO 3166-1 alpha-2 */
                    country?: string;
                    firstName?: string;
                    lastName?: string;
                    /** @description Verification level, e.g. basic, enhanced */
                    level?: string;
                    /** @enum {unknown} */
                    provider?: "idv-a" | "manual";
                    /** Format: uuid */
                    userId: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["KycSession"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getKycKycs: {
        parameters: {
            query?: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                provider?: "idv-a" | "idv-b" | "manual";
                status?: "created" | "started" | "submitted" | "review" | "approved" | "declined" | "resubmission_requested" | "expired" | "abandoned";
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "provider": "idv-a",
                     *           "flow": "string",
                     *           "status": "created",
                     *           "sessionUrl": "https://app.example.com/return",
                     *           "reason": "Document expired",
                     *           "firstName": "Ada",
                     *           "lastName": "Lovelace",
                     *           "dateOfBirth": "string",
                     *           "country": "US",
                     *           "documentType": "string",
                     *           "level": "string",
                     *           "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "walletChain": "string",
                     *           "walletVerified": true,
                     *           "expiresAt": "2026-01-15T09:30:00.000Z",
                     *           "decidedAt": "2026-01-15T09:30:00.000Z",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["KycList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    putKycRejectByKycId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kycId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "Document expired"
                 *     }
                 */
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "idv-a",
                     *       "flow": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "reason": "Document expired",
                     *       "firstName": "Ada",
                     *       "lastName": "Lovelace",
                     *       "dateOfBirth": "string",
                     *       "country": "US",
                     *       "documentType": "string",
                     *       "level": "string",
                     *       "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "walletChain": "string",
                     *       "walletVerified": true,
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "decidedAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["KycSummary"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    putKycRequestResubmissionByKycId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kycId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "Document expired"
                 *     }
                 */
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "idv-a",
                     *       "flow": "string",
                     *       "status": "created",
                     *       "sessionUrl": "https://app.example.com/return",
                     *       "reason": "Document expired",
                     *       "firstName": "Ada",
                     *       "lastName": "Lovelace",
                     *       "dateOfBirth": "string",
                     *       "country": "US",
                     *       "documentType": "string",
                     *       "level": "string",
                     *       "walletAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "walletChain": "string",
                     *       "walletVerified": true,
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "decidedAt": "2026-01-15T09:30:00.000Z",
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["KycSummary"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getNonCustodialEvmTransfers: {
        parameters: {
            query?: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "provider": "string",
                     *           "idempotentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "amount": "10.5",
                     *           "assetType": "string",
                     *           "sourceId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "sourceType": "string",
                     *           "destinationId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "destinationType": "string",
                     *           "deductFeeFromAmountIfSameType": true,
                     *           "transferMemo": "string",
                     *           "status": "pending",
                     *           "providerTransferId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *           "failureReason": "string",
                     *           "hasQuestionnaire": true,
                     *           "transferAmlQuestionnaire": {
                     *             "destinationType": "FINANCIAL_INSTITUTION",
                     *             "recipientType": "DESTINATION_INSTITUTION",
                     *             "purpose": "TRADING_SETTLEMENT",
                     *             "originatorType": "MY_ORGANIZATION",
                     *             "selfhostedDescription": "string",
                     *             "institutionName": "string",
                     *             "institutionCountry": "string",
                     *             "originatorName": "string",
                     *             "originatorStreetAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *             "originatorCity": "string",
                     *             "originatorStateProvince": "string",
                     *             "originatorPostalCode": "string",
                     *             "originatorCountry": "string",
                     *             "recipientFirstName": "string",
                     *             "recipientLastName": "string",
                     *             "recipientFullName": "string",
                     *             "recipientCountry": "string",
                     *             "recipientStreetAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *             "recipientCity": "string",
                     *             "recipientStateProvince": "string",
                     *             "recipientPostalCode": "string"
                     *           },
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Transfer"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postNonCustodialEvmTransfers: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe: the same key replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED
                 * @example 4c1f2a8e-transfer-001
                 */
                "idempotency-key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "amount": "10.5",
                 *       "assetType": "ETH",
                 *       "sourceId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "sourceType": "WALLET",
                 *       "destinationId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "destinationType": "ADDRESS",
                 *       "deductFeeFromAmountIfSameType": false,
                 *       "idempotentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "transferMemo": "string",
                 *       "provider": "string",
                 *       "transferAmlQuestionnaire": {
                 *         "destinationType": "FINANCIAL_INSTITUTION",
                 *         "recipientType": "DESTINATION_INSTITUTION",
                 *         "purpose": "TRADING_SETTLEMENT",
                 *         "originatorType": "MY_ORGANIZATION",
                 *         "selfhostedDescription": "string",
                 *         "institutionName": "string",
                 *         "institutionCountry": "string",
                 *         "originatorName": "string",
                 *         "originatorStreetAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *         "originatorCity": "string",
                 *         "originatorStateProvince": "string",
                 *         "originatorPostalCode": "string",
                 *         "originatorCountry": "string",
                 *         "recipientFirstName": "string",
                 *         "recipientLastName": "string",
                 *         "recipientFullName": "string",
                 *         "recipientCountry": "string",
                 *         "recipientStreetAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *         "recipientCity": "string",
                 *         "recipientStateProvince": "string",
                 *         "recipientPostalCode": "string"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description A positive decimal string (ETH: at most 18 decimals) */
                    amount: string;
                    /** @description ETH */
                    assetType: string;
                    /** @default false */
                    deductFeeFromAmountIfSameType?: boolean;
                    /** @description The destination address */
                    destinationId: string;
                    /** @description ADDRESS */
                    destinationType: string;
                    /** @description Required: a repeat answers the first result */
                    idempotentId: string;
                    /** @description The custody provider that executes the transfer: custody-a */
                    provider: string;
                    /**
                     * Format: uuid
                     * @description A walletId of the caller's, held by the provider
                     */
                    sourceId: string;
                    /** @description WALLET */
                    sourceType: string;
                    transferAmlQuestionnaire?: components["schemas"]["TravelRuleQuestionnaire"];
                    transferMemo?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "idempotent-replayed": components["headers"]["IdempotentReplayed"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "idempotentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "amount": "10.5",
                     *       "assetType": "string",
                     *       "sourceId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "sourceType": "string",
                     *       "destinationId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "destinationType": "string",
                     *       "deductFeeFromAmountIfSameType": true,
                     *       "transferMemo": "string",
                     *       "status": "pending",
                     *       "providerTransferId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "failureReason": "string",
                     *       "hasQuestionnaire": true,
                     *       "transferAmlQuestionnaire": {
                     *         "destinationType": "FINANCIAL_INSTITUTION",
                     *         "recipientType": "DESTINATION_INSTITUTION",
                     *         "purpose": "TRADING_SETTLEMENT",
                     *         "originatorType": "MY_ORGANIZATION",
                     *         "selfhostedDescription": "string",
                     *         "institutionName": "string",
                     *         "institutionCountry": "string",
                     *         "originatorName": "string",
                     *         "originatorStreetAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "originatorCity": "string",
                     *         "originatorStateProvince": "string",
                     *         "originatorPostalCode": "string",
                     *         "originatorCountry": "string",
                     *         "recipientFirstName": "string",
                     *         "recipientLastName": "string",
                     *         "recipientFullName": "string",
                     *         "recipientCountry": "string",
                     *         "recipientStreetAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "recipientCity": "string",
                     *         "recipientStateProvince": "string",
                     *         "recipientPostalCode": "string"
                     *       },
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Transfer"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getNonCustodialEvmTransfersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "provider": "string",
                     *       "idempotentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "amount": "10.5",
                     *       "assetType": "string",
                     *       "sourceId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "sourceType": "string",
                     *       "destinationId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "destinationType": "string",
                     *       "deductFeeFromAmountIfSameType": true,
                     *       "transferMemo": "string",
                     *       "status": "pending",
                     *       "providerTransferId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "failureReason": "string",
                     *       "hasQuestionnaire": true,
                     *       "transferAmlQuestionnaire": {
                     *         "destinationType": "FINANCIAL_INSTITUTION",
                     *         "recipientType": "DESTINATION_INSTITUTION",
                     *         "purpose": "TRADING_SETTLEMENT",
                     *         "originatorType": "MY_ORGANIZATION",
                     *         "selfhostedDescription": "string",
                     *         "institutionName": "string",
                     *         "institutionCountry": "string",
                     *         "originatorName": "string",
                     *         "originatorStreetAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "originatorCity": "string",
                     *         "originatorStateProvince": "string",
                     *         "originatorPostalCode": "string",
                     *         "originatorCountry": "string",
                     *         "recipientFirstName": "string",
                     *         "recipientLastName": "string",
                     *         "recipientFullName": "string",
                     *         "recipientCountry": "string",
                     *         "recipientStreetAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "recipientCity": "string",
                     *         "recipientStateProvince": "string",
                     *         "recipientPostalCode": "string"
                     *       },
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Transfer"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    getNonCustodianXrplChallenge: {
        parameters: {
            query?: {
                /** @description The account to register: written into the message (the signature then names it) and the only address the challenge registers. Without it the message names no account and says what the signature proves. */
                address?: string;
                /** @description The user acted for: with an API key or an admin token (default: the caller) */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "challenge": "string",
                     *       "message": "Done",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "issuedAt": "2026-01-15T09:30:00.000Z",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["XrplChallenge"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postNonCustodianXrplSign: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "address": "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
                 *       "message": "Done"
                 *     }
                 */
                "application/json": {
                    /** @description XRPL classic address */
                    address: string;
                    message: string;
                    /**
                     * Format: uuid
                     * @description The user acted for: with an API key or an admin token (default: the caller)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "publicKey": "string",
                     *       "message": "Done",
                     *       "signature": "string"
                     *     }
                     */
                    "application/json": {
                        address: string;
                        message: string;
                        publicKey: string;
                        signature: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postNonCustodianXrplSignTransaction: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "transaction": {
                 *         "TransactionType": "string",
                 *         "Account": "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description An XRPL transaction in JSON (Payment, AccountSet, TrustSet, SetRegularKey, SignerListSet), without Sequence, Fee, LastLedgerSequence or signatures */
                    transaction: {
                        /** @description XRPL classic address */
                        Account: string;
                        TransactionType: string;
                    } & {
                        [key: string]: unknown;
                    };
                    /**
                     * Format: uuid
                     * @description The user acted for: with an API key or an admin token (default: the caller)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "complete": true,
                     *       "txBlob": "string",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "transaction": {},
                     *       "signaturesRequired": [
                     *         {
                     *           "account": "string",
                     *           "multisign": true,
                     *           "signingData": "string"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        complete: boolean;
                        hash: string | null;
                        signaturesRequired: {
                            account: string;
                            multisign: boolean;
                            signingData: string;
                        }[];
                        transaction: {
                            [key: string]: unknown;
                        };
                        txBlob: string | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postNonCustodianXrplTxSubmit: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe: the same key replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED
                 * @example 4c1f2a8e-transfer-001
                 */
                "idempotency-key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "txBlob": "1200002280000000",
                 *       "txBlobs": [
                 *         "1200002280000000"
                 *       ]
                 *     }
                 */
                "application/json": {
                    txBlob?: string;
                    /** @description Multi-signatures of one transaction, combined by the service */
                    txBlobs?: string[];
                    /**
                     * Format: uuid
                     * @description The user acted for: with an API key or an admin token (default: the caller)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "idempotent-replayed": components["headers"]["IdempotentReplayed"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "submissionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "account": "string",
                     *       "transactionType": "string",
                     *       "sequence": 1,
                     *       "lastLedgerSequence": 1,
                     *       "status": "submitted",
                     *       "engineResult": "string",
                     *       "result": "string",
                     *       "ledgerIndex": 1,
                     *       "validated": true
                     *     }
                     */
                    "application/json": components["schemas"]["XrplSubmission"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postNonCustodianXrplWallet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "address": "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
                 *       "publicKey": "0330e7fc9d56bb25d6893ba3f317ae5bcf33b3291bd63db32654a313222f7fd020",
                 *       "signature": "48656C6C6F",
                 *       "challenge": "0123456789abcdef0123456789abcdef"
                 *     }
                 */
                "application/json": {
                    /** @description XRPL classic address */
                    address: string;
                    /** @description The `challenge` value a challenge route answered */
                    challenge: string;
                    /** @description The signing public key, hex (33 bytes: secp256k1, or ED + 32 bytes) */
                    publicKey: string;
                    /** @description ripple-keypairs signature of the challenge message (UTF-8 bytes), hex */
                    signature: string;
                    /**
                     * Format: uuid
                     * @description The user acted for: with an API key or an admin token (default: the caller)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "evm-eoa",
                     *       "chain": "evm",
                     *       "network": "sepolia",
                     *       "chainId": 1,
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "details": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "account": {
                     *         "exists": true,
                     *         "balanceDrops": "string",
                     *         "sequence": 1,
                     *         "flags": {},
                     *         "regularKey": "string",
                     *         "signerList": {
                     *           "quorum": 1,
                     *           "signers": [
                     *             {
                     *               "account": "string",
                     *               "weight": 1
                     *             }
                     *           ]
                     *         },
                     *         "ledgerIndex": 1
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["XrplWallet"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postNonCustodianXrplWalletChallengeByAddress: {
        parameters: {
            query?: {
                /** @description The user acted for: with an API key or an admin token (default: the caller) */
                userId?: string;
            };
            header?: never;
            path: {
                /** @description XRPL classic address */
                address: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "challenge": "string",
                     *       "message": "Done",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "issuedAt": "2026-01-15T09:30:00.000Z",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["XrplChallenge"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postNonCustodianXrplWalletInvestor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description create-wallet: the user, when an API key or admin acts for one */
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uuid
                     * @description The user acted for: with an API key or an admin token (default: the caller)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "evm-eoa",
                     *       "chain": "evm",
                     *       "network": "sepolia",
                     *       "chainId": 1,
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "details": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "account": {
                     *         "exists": true,
                     *         "balanceDrops": "string",
                     *         "sequence": 1,
                     *         "flags": {},
                     *         "regularKey": "string",
                     *         "signerList": {
                     *           "quorum": 1,
                     *           "signers": [
                     *             {
                     *               "account": "string",
                     *               "weight": 1
                     *             }
                     *           ]
                     *         },
                     *         "ledgerIndex": 1
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["XrplWallet"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postNonCustodianXrplWalletSignerWallet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description create-wallet: the user, when an API key or admin acts for one */
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uuid
                     * @description The user acted for: with an API key or an admin token (default: the caller)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "evm-eoa",
                     *       "chain": "evm",
                     *       "network": "sepolia",
                     *       "chainId": 1,
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "details": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "account": {
                     *         "exists": true,
                     *         "balanceDrops": "string",
                     *         "sequence": 1,
                     *         "flags": {},
                     *         "regularKey": "string",
                     *         "signerList": {
                     *           "quorum": 1,
                     *           "signers": [
                     *             {
                     *               "account": "string",
                     *               "weight": 1
                     *             }
                     *           ]
                     *         },
                     *         "ledgerIndex": 1
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["XrplWallet"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    putNonCustodianXrplWalletUpdateByAddress: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe: the same key replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED
                 * @example 4c1f2a8e-transfer-001
                 */
                "idempotency-key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description XRPL classic address */
                address: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "rippling": true,
                 *       "requireDestinationTag": true,
                 *       "disallowXrp": true,
                 *       "depositAuth": true,
                 *       "multiSignature": true
                 *     }
                 */
                "application/json": {
                    /** @description asfDepositAuth */
                    depositAuth?: boolean;
                    /** @description asfDisallowXRP */
                    disallowXrp?: boolean;
                    /** @description Investor wallet: SignerList (signer + cold, quorum 2), then the master key disabled. Only true. */
                    multiSignature?: boolean;
                    /** @description asfRequireDest */
                    requireDestinationTag?: boolean;
                    /** @description asfDefaultRipple */
                    rippling?: boolean;
                    /**
                     * Format: uuid
                     * @description The user acted for: with an API key or an admin token (default: the caller)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "idempotent-replayed": components["headers"]["IdempotentReplayed"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "wallet": {
                     *         "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "kind": "evm-eoa",
                     *         "chain": "evm",
                     *         "network": "sepolia",
                     *         "chainId": 1,
                     *         "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "details": {},
                     *         "createdAt": "2026-01-15T09:30:00.000Z",
                     *         "updatedAt": "2026-01-15T09:30:00.000Z",
                     *         "account": {
                     *           "exists": true,
                     *           "balanceDrops": "string",
                     *           "sequence": 1,
                     *           "flags": {},
                     *           "regularKey": "string",
                     *           "signerList": {
                     *             "quorum": 1,
                     *             "signers": [
                     *               {
                     *                 "account": "string",
                     *                 "weight": 1
                     *               }
                     *             ]
                     *           },
                     *           "ledgerIndex": 1
                     *         }
                     *       },
                     *       "transactions": [
                     *         {
                     *           "submissionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *           "account": "string",
                     *           "transactionType": "string",
                     *           "sequence": 1,
                     *           "lastLedgerSequence": 1,
                     *           "status": "submitted",
                     *           "engineResult": "string",
                     *           "result": "string",
                     *           "ledgerIndex": 1,
                     *           "validated": true
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        transactions: components["schemas"]["XrplSubmission"][];
                        wallet: components["schemas"]["XrplWallet"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getNonCustodianXrplWallets: {
        parameters: {
            query?: {
                /** @description The user acted for: with an API key or an admin token (default: the caller) */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "investor": {
                     *         "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "kind": "evm-eoa",
                     *         "chain": "evm",
                     *         "network": "sepolia",
                     *         "chainId": 1,
                     *         "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "details": {},
                     *         "createdAt": "2026-01-15T09:30:00.000Z",
                     *         "updatedAt": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "signer": {
                     *         "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "kind": "evm-eoa",
                     *         "chain": "evm",
                     *         "network": "sepolia",
                     *         "chainId": 1,
                     *         "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *         "details": {},
                     *         "createdAt": "2026-01-15T09:30:00.000Z",
                     *         "updatedAt": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "cold": [
                     *         {
                     *           "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "kind": "evm-eoa",
                     *           "chain": "evm",
                     *           "network": "sepolia",
                     *           "chainId": 1,
                     *           "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "details": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "secure": [
                     *         {
                     *           "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "kind": "evm-eoa",
                     *           "chain": "evm",
                     *           "network": "sepolia",
                     *           "chainId": 1,
                     *           "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "details": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        cold: components["schemas"]["Wallet"][];
                        investor: components["schemas"]["Wallet"] | null;
                        secure: components["schemas"]["Wallet"][];
                        signer: components["schemas"]["Wallet"] | null;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postSandboxCustodyAVaultsByVaultIdFund: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                vaultId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "symbol": "ETH",
                 *       "qty": "10.5"
                 *     }
                 */
                "application/json": {
                    /** @description At most 10 ETH / 1000 XRP */
                    qty: string;
                    /** @description ETH (the EVM wallet) or XRP (the XRPL wallet) */
                    symbol: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "symbol": "ETH",
                     *       "qty": "10.5",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "balance": "string"
                     *     }
                     */
                    "application/json": {
                        address: string;
                        /** @description The wallet's balance after the payment */
                        balance: string;
                        /** @description The EVM funding transaction (XRPL: null) */
                        hash: string | null;
                        qty: string;
                        symbol: string;
                        vaultId: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postSandboxCustodyBFund: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *       "amount": "10.5"
                 *     }
                 */
                "application/json": {
                    address: string;
                    /** @description ETH (at most 10) or XRP (at most 1000), by the wallet */
                    amount: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "symbol": "ETH",
                     *       "amount": "10.5",
                     *       "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                     *       "balance": "string"
                     *     }
                     */
                    "application/json": {
                        address: string;
                        amount: string;
                        /** @description The wallet's balance after the payment */
                        balance: string;
                        /** @description The EVM funding transaction (XRPL: null) */
                        hash: string | null;
                        symbol: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getSignedDocuments: {
        parameters: {
            query?: {
                documentId?: string;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "documentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "chainType": "evm",
                     *           "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "scheme": "string",
                     *           "signerKind": "string",
                     *           "documentSha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *           "payload": {},
                     *           "signature": "string",
                     *           "publicKey": "string",
                     *           "nonce": "string",
                     *           "signedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SignedDocument"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getSignedDocumentsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "documentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "chainType": "evm",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "scheme": "string",
                     *       "signerKind": "string",
                     *       "documentSha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "payload": {},
                     *       "signature": "string",
                     *       "publicKey": "string",
                     *       "nonce": "string",
                     *       "signedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["SignedDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getTenantDocuments: {
        parameters: {
            query?: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "title": "Subscription agreement",
                     *           "metadata": {},
                     *           "mediaType": "application/pdf",
                     *           "size": 0,
                     *           "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *           "source": "string",
                     *           "contentUrl": "https://app.example.com/return",
                     *           "signatures": 0,
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z",
                     *           "deletedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["TenantDocument"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postTenantDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Subscription agreement",
                 *       "metadata": {},
                 *       "contentBase64": "string",
                 *       "url": "https://app.example.com/return"
                 *     }
                 */
                "application/json": {
                    /** @description The file, base64 (at most 20 MiB decoded); or give url */
                    contentBase64?: string;
                    /** @description Free JSON object (at most 16 KiB) */
                    metadata?: {
                        [key: string]: unknown;
                    };
                    title: string;
                    /** @description An https URL on a public address (private, loopback, link-local and metadata addresses are refused, on every redirect too) */
                    url?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "title": "Subscription agreement",
                     *       "metadata": {},
                     *       "mediaType": "application/pdf",
                     *       "size": 0,
                     *       "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "source": "string",
                     *       "contentUrl": "https://app.example.com/return",
                     *       "signatures": 0,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "deletedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TenantDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getTenantDocumentsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "title": "Subscription agreement",
                     *       "metadata": {},
                     *       "mediaType": "application/pdf",
                     *       "size": 0,
                     *       "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "source": "string",
                     *       "contentUrl": "https://app.example.com/return",
                     *       "signatures": 0,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "deletedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TenantDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    deleteTenantDocumentsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description No fields; the body may be omitted */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "title": "Subscription agreement",
                     *       "metadata": {},
                     *       "mediaType": "application/pdf",
                     *       "size": 0,
                     *       "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "source": "string",
                     *       "contentUrl": "https://app.example.com/return",
                     *       "signatures": 0,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "deletedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TenantDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    patchTenantDocumentsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description Metadata only: the content of a document never changes (upload a new document instead) */
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "title": "Subscription agreement",
                 *       "metadata": {}
                 *     }
                 */
                "application/json": {
                    /** @description Free JSON object (at most 16 KiB) */
                    metadata?: {
                        [key: string]: unknown;
                    };
                    title?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "title": "Subscription agreement",
                     *       "metadata": {},
                     *       "mediaType": "application/pdf",
                     *       "size": 0,
                     *       "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "source": "string",
                     *       "contentUrl": "https://app.example.com/return",
                     *       "signatures": 0,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "deletedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TenantDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getTenantDocumentsByIdContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document content, with its detected media type */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getTenantDocumentsByIdSign: {
        parameters: {
            query: {
                /** @description The signing wallet address */
                address: string;
                /** @description `evm` or `xrpl` */
                chainType: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "documentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "tenantId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "chainType": "evm",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "documentSha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "nonce": "string",
                     *       "issuedAt": "2026-01-15T09:30:00.000Z",
                     *       "expiresAt": "2026-01-15T09:30:00.000Z",
                     *       "message": "Done",
                     *       "messageHex": "string",
                     *       "typedData": {
                     *         "domain": {
                     *           "name": "Example",
                     *           "version": "string",
                     *           "chainId": 1
                     *         },
                     *         "types": {},
                     *         "primaryType": "string",
                     *         "message": {}
                     *       }
                     *     }
                     */
                    "application/json": {
                        address: string;
                        /** @enum {unknown} */
                        chainType: "evm" | "xrpl";
                        /** Format: uuid */
                        documentId: string;
                        /** @description SHA-256 of the content, hex */
                        documentSha256: string;
                        /** Format: date-time */
                        expiresAt: string;
                        /** Format: date-time */
                        issuedAt: string;
                        /** @description The canonical text: EIP-191 personal_sign text (evm) or the message (xrpl) */
                        message: string;
                        /** @description The message as UTF-8 bytes, hex (what an XRPL key signs) */
                        messageHex: string;
                        nonce: string;
                        /** Format: uuid */
                        tenantId: string;
                        typedData?: {
                            domain: {
                                chainId: number;
                                name: string;
                                version: string;
                            };
                            message: {
                                [key: string]: unknown;
                            };
                            primaryType: string;
                            types: {
                                [key: string]: {
                                    name: string;
                                    type: string;
                                }[];
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postTenantDocumentsByIdSign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *       "nonce": "string",
                 *       "signature": "0xdeadbeef",
                 *       "scheme": "eip712"
                 *     }
                 */
                "application/json": {
                    address: string;
                    nonce: string;
                    /** @enum {unknown} */
                    scheme?: "eip712" | "eip191";
                    signature: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "documentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "chainType": "evm",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "scheme": "string",
                     *       "signerKind": "string",
                     *       "documentSha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "payload": {},
                     *       "signature": "string",
                     *       "publicKey": "string",
                     *       "nonce": "string",
                     *       "signedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["SignedDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postTenantDocumentsByIdSignXrpl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f5",
                 *       "nonce": "string",
                 *       "signature": "0x02f86c",
                 *       "publicKey": "0330e7fc9d56bb25d6893ba3f317ae5bcf33b3291bd63db32654a313222f7fd020"
                 *     }
                 */
                "application/json": {
                    address: string;
                    nonce: string;
                    /** @description The signing public key, hex (33 bytes: secp256k1 02/03, or ED + Ed25519) */
                    publicKey: string;
                    signature: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "documentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "chainType": "evm",
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "scheme": "string",
                     *       "signerKind": "string",
                     *       "documentSha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "payload": {},
                     *       "signature": "string",
                     *       "publicKey": "string",
                     *       "nonce": "string",
                     *       "signedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["SignedDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getUserDocuments: {
        parameters: {
            query?: {
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                type?: "identity" | "proof_of_address" | "accreditation" | "tax" | "bank_statement" | "other";
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "type": "identity",
                     *           "name": "Example",
                     *           "mediaType": "application/pdf",
                     *           "size": 0,
                     *           "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *           "source": "string",
                     *           "contentUrl": "https://app.example.com/return",
                     *           "createdAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["UserDocument"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postUserDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "identity",
                 *       "name": "Example",
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                 *     }
                 */
                "application/json": {
                    name: string;
                    /** @enum {unknown} */
                    type: "identity" | "proof_of_address" | "accreditation" | "tax" | "bank_statement" | "other";
                    /**
                     * Format: uuid
                     * @description The owner: required with an API key, optional for an admin, the caller otherwise
                     */
                    userId?: string;
                };
                /**
                 * @example {
                 *       "type": "identity",
                 *       "name": "Required",
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "file": ""
                 *     }
                 */
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description Required: the document (at most 20 MiB)
                     */
                    file?: string;
                    /** @description Required */
                    name?: string;
                    /**
                     * @description Required
                     * @enum {string}
                     */
                    type?: "identity" | "proof_of_address" | "accreditation" | "tax" | "bank_statement" | "other";
                    /**
                     * Format: uuid
                     * @description The owner: required with an API key, optional for an admin, the caller otherwise
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "type": "identity",
                     *       "name": "Example",
                     *       "mediaType": "application/pdf",
                     *       "size": 0,
                     *       "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "source": "string",
                     *       "contentUrl": "https://app.example.com/return",
                     *       "createdAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["UserDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getUserDocumentsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "type": "identity",
                     *       "name": "Example",
                     *       "mediaType": "application/pdf",
                     *       "size": 0,
                     *       "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "source": "string",
                     *       "contentUrl": "https://app.example.com/return",
                     *       "createdAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["UserDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getUserDocumentsByIdContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document content, with its detected media type */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postUserDocumentsFromUrl: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "identity",
                 *       "name": "Example",
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "url": "https://app.example.com/return"
                 *     }
                 */
                "application/json": {
                    name: string;
                    /** @enum {unknown} */
                    type: "identity" | "proof_of_address" | "accreditation" | "tax" | "bank_statement" | "other";
                    /** @description An https URL on a public address (private, loopback, link-local and metadata addresses are refused, on every redirect too) */
                    url: string;
                    /**
                     * Format: uuid
                     * @description The owner: required with an API key, optional for an admin, the caller otherwise
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "type": "identity",
                     *       "name": "Example",
                     *       "mediaType": "application/pdf",
                     *       "size": 0,
                     *       "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     *       "source": "string",
                     *       "contentUrl": "https://app.example.com/return",
                     *       "createdAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["UserDocument"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getUsers: {
        parameters: {
            query?: {
                /** @description Keyset cursor: return rows after this id (stays fast on large tables) */
                afterId?: string;
                /** @description Exact match (case-insensitive) */
                email?: string;
                evmEoa?: string;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                xrplSecureAccountAddress?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 1,
                     *       "data": [
                     *         {
                     *           "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "email": "ada@example.com",
                     *           "fullName": "Ada Lovelace",
                     *           "phone": null,
                     *           "role": "user",
                     *           "emailVerified": false,
                     *           "kycStatus": null,
                     *           "evmEoa": null,
                     *           "xrplSecureAccountAddress": null,
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["UserList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "fullName": "Ada Lovelace"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @description Email address; compared case-insensitively
                     */
                    email: string;
                    fullName?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada Lovelace",
                     *       "phone": null,
                     *       "role": "user",
                     *       "emailVerified": false,
                     *       "kycStatus": null,
                     *       "evmEoa": null,
                     *       "xrplSecureAccountAddress": null,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getUsersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada Lovelace",
                     *       "phone": null,
                     *       "role": "user",
                     *       "emailVerified": true,
                     *       "kycStatus": "approved",
                     *       "evmEoa": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "xrplSecureAccountAddress": null,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "walletAddresses": {
                     *         "evm": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "evmCompatible": null,
                     *         "xrpl": null
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["UserProfile"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    patchUsersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "fullName": "Ada King"
                 *     }
                 */
                "application/json": components["schemas"]["UserUpdate"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada King",
                     *       "phone": null,
                     *       "role": "user",
                     *       "emailVerified": false,
                     *       "kycStatus": null,
                     *       "evmEoa": null,
                     *       "xrplSecureAccountAddress": null,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getUsersMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada Lovelace",
                     *       "phone": null,
                     *       "role": "user",
                     *       "emailVerified": true,
                     *       "kycStatus": "approved",
                     *       "evmEoa": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "xrplSecureAccountAddress": null,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z",
                     *       "walletAddresses": {
                     *         "evm": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *         "evmCompatible": null,
                     *         "xrpl": null
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["UserProfile"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    patchUsersMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "fullName": "Ada King",
                 *       "phone": "+14155550123"
                 *     }
                 */
                "application/json": components["schemas"]["UserUpdate"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "email": "ada@example.com",
                     *       "fullName": "Ada King",
                     *       "phone": "+14155550123",
                     *       "role": "user",
                     *       "emailVerified": false,
                     *       "kycStatus": null,
                     *       "evmEoa": null,
                     *       "xrplSecureAccountAddress": null,
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getUsersWalletAddressesByUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "evm": "string",
                     *       "evmCompatible": "string",
                     *       "xrpl": "string"
                     *     }
                     */
                    "application/json": components["schemas"]["WalletAddresses"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getXrplSecureAccounts: {
        parameters: {
            query?: {
                /** @description Keyset cursor: return rows after this id (stays fast on large tables) */
                afterId?: string;
                /** @description Page size, 1-100 */
                limit?: number;
                /** @description Rows to skip */
                offset?: number;
                /** @description The user acted for: with an API key or an admin token (default: the caller) */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 0,
                     *       "data": [
                     *         {
                     *           "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "kind": "evm-eoa",
                     *           "chain": "evm",
                     *           "network": "sepolia",
                     *           "chainId": 1,
                     *           "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *           "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *           "details": {},
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "updatedAt": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["WalletList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    postXrplSecureAccounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "address": "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
                 *       "challenge": "0123456789abcdef0123456789abcdef",
                 *       "signatures": [
                 *         {
                 *           "publicKey": "0330e7fc9d56bb25d6893ba3f317ae5bcf33b3291bd63db32654a313222f7fd020",
                 *           "signature": "48656C6C6F"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description XRPL classic address */
                    address: string;
                    /** @description The `challenge` value a challenge route answered */
                    challenge: string;
                    /** @description One signature by the master or regular key, or signatures of SignerList members meeting the quorum */
                    signatures: {
                        /** @description The signing public key, hex (33 bytes: secp256k1, or ED + 32 bytes) */
                        publicKey: string;
                        /** @description ripple-keypairs signature of the challenge message (UTF-8 bytes), hex */
                        signature: string;
                    }[];
                    /**
                     * Format: uuid
                     * @description The user acted for: with an API key or an admin token (default: the caller)
                     */
                    userId?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "evm-eoa",
                     *       "chain": "evm",
                     *       "network": "sepolia",
                     *       "chainId": 1,
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "details": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    getXrplSecureAccountsByAddress: {
        parameters: {
            query?: {
                /** @description The user acted for: with an API key or an admin token (default: the caller) */
                userId?: string;
            };
            header?: never;
            path: {
                /** @description XRPL classic address */
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "kind": "evm-eoa",
                     *       "chain": "evm",
                     *       "network": "sepolia",
                     *       "chainId": 1,
                     *       "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                     *       "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                     *       "details": {},
                     *       "createdAt": "2026-01-15T09:30:00.000Z",
                     *       "updatedAt": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            408: components["responses"]["Error408"];
            414: components["responses"]["Error414"];
            429: components["responses"]["Error429"];
            431: components["responses"]["Error431"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    eventAccreditationDecided: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "accreditation.decided",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "accreditationId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "decision": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["AccreditationDecidedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "accreditation.decided";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventAccreditationSubmitted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "accreditation.submitted",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "accreditationId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "type": "string",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["AccreditationSubmittedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "accreditation.submitted";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventBankLinkItemLinked: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "bank_link.item_linked",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "itemId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "institutionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "accounts": 1
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["BankLinkItemLinkedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "bank_link.item_linked";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventBankLinkItemRemoved: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "bank_link.item_removed",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "itemId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["BankLinkItemRemovedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "bank_link.item_removed";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventBankLinkItemUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "bank_link.item_updated",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "itemId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "status": "pending",
                 *         "errorCode": "string",
                 *         "webhookCode": "string"
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["BankLinkItemUpdatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "bank_link.item_updated";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventBankLinkOriginatorUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "bank_link.originator_updated",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "originatorId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "diligenceStatus": "string"
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["BankLinkOriginatorUpdatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "bank_link.originator_updated";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventCustodyVaultCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "custody.vault_created",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "walletIds": [
                 *           "string"
                 *         ],
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["CustodyVaultCreatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "custody.vault_created";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventDocumentSigned: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "document.signed",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "signedDocumentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "documentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "chainType": "string",
                 *         "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *         "documentSha256": "string",
                 *         "scheme": "string"
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["DocumentSignedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "document.signed";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventDocumentUploaded: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "document.uploaded",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "documentId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "kind": "user",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "type": "string",
                 *         "sha256": "string",
                 *         "mediaType": "application/pdf",
                 *         "size": 1,
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["DocumentUploadedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "document.uploaded";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEndpointTest: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "endpoint.test",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "endpointId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "message": "Done",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EndpointTestEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "endpoint.test";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityBusinessProfileSubmitted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.business_profile_submitted",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "profileId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "providerBusinessId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "status": "pending",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityBusinessProfileSubmittedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.business_profile_submitted";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityBusinessProfileUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.business_profile_updated",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "profileId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "providerBusinessId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "from": "string",
                 *         "status": "pending",
                 *         "eventId": "3fa85f64-5717-4562-b3fc-2c963f66afa6"
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityBusinessProfileUpdatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.business_profile_updated";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.created",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "ownerUserId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "type": "string",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityCreatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.created";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityMemberAdded: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.member_added",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "permissions": [
                 *           "string"
                 *         ],
                 *         "permission": "string",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityMemberAddedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.member_added";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityMemberRemoved: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.member_removed",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "permissions": [
                 *           "string"
                 *         ],
                 *         "permission": "string",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityMemberRemovedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.member_removed";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityPaymentMethodAdded: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.payment_method_added",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "methodId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "kind": "string",
                 *         "changed": [
                 *           "string"
                 *         ],
                 *         "archived": true,
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityPaymentMethodAddedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.payment_method_added";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityPaymentMethodUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.payment_method_updated",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "methodId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "kind": "string",
                 *         "changed": [
                 *           "string"
                 *         ],
                 *         "archived": true,
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityPaymentMethodUpdatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.payment_method_updated";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityPermissionGranted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.permission_granted",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "permissions": [
                 *           "string"
                 *         ],
                 *         "permission": "string",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityPermissionGrantedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.permission_granted";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityPermissionRevoked: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.permission_revoked",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "permissions": [
                 *           "string"
                 *         ],
                 *         "permission": "string",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityPermissionRevokedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.permission_revoked";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventEntityUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "entity.updated",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "entityId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "fields": [
                 *           "string"
                 *         ],
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["EntityUpdatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "entity.updated";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycAbandoned: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.abandoned",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycAbandonedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.abandoned";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycApproved: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.approved",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycApprovedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.approved";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.created",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycCreatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.created";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycDeclined: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.declined",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycDeclinedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.declined";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycExpired: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.expired",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycExpiredEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.expired";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycResubmissionRequested: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.resubmission_requested",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycResubmissionRequestedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.resubmission_requested";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycReview: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.review",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycReviewEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.review";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycStarted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.started",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycStartedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.started";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycSubmitted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.submitted",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "provider": "string",
                 *         "from": "string",
                 *         "to": "string",
                 *         "reason": "Document expired",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycSubmittedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.submitted";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventKycUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "kyc.updated",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kycId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "fields": [
                 *           "string"
                 *         ],
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         },
                 *         "reason": "Document expired"
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["KycUpdatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "kyc.updated";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventTransferCompleted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "transfer.completed",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kind": "xrpl-submission",
                 *         "submissionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "network": "sepolia",
                 *         "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                 *         "account": "string",
                 *         "transactionType": "string",
                 *         "sequence": 1,
                 *         "status": "pending",
                 *         "engineResult": "string",
                 *         "result": "string",
                 *         "ledgerIndex": 1
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["TransferCompletedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "transfer.completed";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventTransferFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "transfer.failed",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kind": "xrpl-submission",
                 *         "submissionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "network": "sepolia",
                 *         "hash": "0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658",
                 *         "account": "string",
                 *         "transactionType": "string",
                 *         "sequence": 1,
                 *         "status": "pending",
                 *         "engineResult": "string",
                 *         "result": "string",
                 *         "ledgerIndex": 1
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["TransferFailedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "transfer.failed";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventTransferSubmitted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "transfer.submitted",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "kind": "custody-a.transaction",
                 *         "transactionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "type": "string",
                 *         "status": "pending",
                 *         "symbol": "ETH",
                 *         "qty": "10.5",
                 *         "destinationAddress": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["TransferSubmittedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "transfer.submitted";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventUserCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "user.created",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "email": "ada@example.com"
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["UserCreatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "user.created";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventUserEmailVerified: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "user.email_verified",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "email": "ada@example.com"
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["UserEmailVerifiedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "user.email_verified";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventUserUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "user.updated",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "fields": [
                 *           "string"
                 *         ]
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["UserUpdatedEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "user.updated";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventWalletRegistered: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt and replay (deduplicate on it) */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Send time, in seconds since the epoch (refuse old ones)
                 * @example 1768469400
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "wallet.registered",
                 *       "timestamp": "2026-01-15T09:30:00.000Z",
                 *       "data": {
                 *         "walletId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "userId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "kind": "string",
                 *         "chain": "string",
                 *         "network": "sepolia",
                 *         "address": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
                 *         "vaultId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *         "actor": {
                 *           "type": "user",
                 *           "id": "string"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    data: components["schemas"]["WalletRegisteredEventData"];
                    /**
                     * Format: date-time
                     * @description When the event happened
                     */
                    timestamp: string;
                    /** @constant */
                    type: "wallet.registered";
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the delivery is retried (and the endpoint disabled after failing for days) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
