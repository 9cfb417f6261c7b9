
/**
 * The CLI's help text and its options, apart from cli.ts (which runs on import) so tests can
 * check that every command an error message names exists with the options it names.
 */
/** The business-profile aliases (cli-provider-aliases.ts). */
const BUSINESS_PROFILE_USAGE = `  business-profile configure --tenant ID --base-url URL --api-key-file PATH --secret-file PATH
                                                    point a tenant at the real business-profile-a API
                                                    (API key and webhook secret read from files, sealed);
                                                    the same as provider configure --kind business-profile
                                                    --provider business-profile-a --secret api-key=PATH
                                                    --secret webhook-secret=PATH
  business-profile sandbox --tenant ID              point it back at the built-in sandbox (fresh key)
  business-profile show --tenant ID                 where the tenant points, and the webhook URL to
                                                    register at the provider (no secrets)
  business-profile review --tenant ID --business-id ID --status in_review|approved|rejected
                                                    sandbox only: decide a business's review; the
                                                    sandbox sends the signed business.updated webhook`;

export const USAGE = `Usage: bastion <command> [options]

  tenant create --name NAME                         create a tenant and its first API key
  api-key create --tenant ID [--name LABEL]         create an API key (shown once)
  api-key revoke --tenant ID --key-id ID            revoke an API key
  user role --tenant ID --email EMAIL --role ROLE   set a user's role (admin | user)
  keys rotate                                       add a new token signing key; older keys keep
                                                    verifying until their tokens expire
  keys rotate-master --new-key-file PATH            wrap every data key under a new master key (one
                                                    transaction; sealed secrets are not rewritten);
                                                    with DATA_DIR/master.key the file is replaced
                                                    after the commit, with MASTER_KEY set it to the
                                                    new key on every instance, then restart them
  tenant set-app-url --tenant ID --url URL          where mail links open (default: Bastion's pages)
  tenant set-cors-origins --tenant ID --origins https://a.example,https://b.example
                                                    the browser origins whose apps may call the API
                                                    (CORS); "default" = the app URL's origin, "" = none
  tenant cors-origins --tenant ID                   the origins admitted, and whether set or default
  idv configure --tenant ID --provider idv-a|idv-b --base-url URL --client-id ID --secret-file PATH
                                                    point a tenant at a real identity-verification
                                                    provider (the webhook secret is read from a file);
                                                    alias of provider configure --kind idv
                                                    --setting client-id=ID --secret webhook-secret=PATH
  idv sandbox --tenant ID --provider idv-a|idv-b    point it back at the built-in sandbox (alias of
                                                    provider sandbox --kind idv)
  idp set --tenant ID --issuer URL --client-id ID (--client-secret S | --client-secret-file PATH)
          --redirect-allow URL... [--scopes "openid email profile"]
                                                    set the tenant's external OpenID provider; the
                                                    secret is stored encrypted; each allowed client
                                                    URL admits its path and the paths below it (alias
                                                    of provider configure --kind idp --provider oidc)
  idp show --tenant ID                              the provider settings (secret masked) and the
                                                    callback URL to register at the provider
  idp remove --tenant ID                            remove the provider (IdP login answers 503
                                                    PROVIDER_NOT_CONFIGURED; alias of provider remove)
${BUSINESS_PROFILE_USAGE}
  storage gc [--older-than HOURS] [--dry-run]       remove stored blobs older than HOURS (default
                                                    24, at least 1) that no module's rows reference;
                                                    prints the modules consulted (checkedBy)
  event-endpoint add --tenant ID --url URL [--types a,b]
                                                    add an event endpoint (its signing secret is
                                                    printed once); no --types = every type
  event-endpoint list --tenant ID                   the tenant's event endpoints
  event-endpoint remove --tenant ID --id ID         remove an endpoint and its queued deliveries
  event-endpoint rotate-secret --tenant ID --id ID  a new signing secret (printed once); the previous
                                                    one also signs for 24 hours
  events replay --tenant ID --endpoint ID --from ISO [--to ISO]
                                                    queue the events of a time range for the
                                                    endpoint again (same webhook-ids)
  provider list                                     the providers a tenant can point at a real
                                                    service, with their settings and secrets
  provider configure --tenant ID --kind KIND --provider NAME --base-url URL
          [--setting NAME=VALUE]... [--secret NAME=PATH]...
                                                    point a tenant at a real provider (each secret
                                                    is read from a file and stored sealed)
  provider sandbox --tenant ID --kind KIND --provider NAME
                                                    back to the built-in sandbox
  provider show --tenant ID --kind KIND --provider NAME
                                                    the settings (secrets named, never shown)
  provider remove --tenant ID --kind KIND --provider NAME
                                                    forget the settings: as a tenant never configured
                                                    (the sandbox where there is one)
  bank-link configure --tenant ID --base-url URL --client-id ID --secret-file PATH [--environment sandbox|production]
                                                    point a tenant at a bank-link provider environment
                                                    (the secret is read from a file and stored sealed);
                                                    alias of provider configure --kind bank-link
                                                    --provider plaid --setting client-id=ID
                                                    [--setting environment=E] --secret secret=PATH
  bank-link sandbox --tenant ID                     back to the built-in sandbox (new test credentials)
  bank-link redirect-allow --tenant ID --redirect-allow URL...
                                                    the URLs the Link page may return to (each admits
                                                    its path and the paths below it)
  bank-link originator --tenant ID --originator-id ID
                                                    name the tenant's own originator
  bank-link show --tenant ID                        the settings (a real secret is never shown; the
                                                    built-in sandbox's test credentials are)
  migrate                                           apply database migrations and exit
  mail list                                         the mail written to DATA_DIR/mail (no SMTP_URL)
  mail show ID                                      one of them as text: headers decoded, links whole

Reads the same environment as the service (DATABASE_URL, DATA_DIR, MASTER_KEY, ...).
With the embedded database, one process opens DATA_DIR at a time: while the service runs, the
command is sent to it (DATA_DIR/bastion.sock) and runs there; while another command runs, it
is refused (exit 1, naming that process). The mail commands need no database.
Prints JSON on stdout (mail: text); errors as JSON on stderr with a non-zero exit code.`;

/** The options `bastion` accepts (node:util parseArgs, strict). */
export const CLI_OPTIONS = {
  name: { type: 'string' },
  tenant: { type: 'string' },
  'key-id': { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  url: { type: 'string' },
  origins: { type: 'string' },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  'secret-file': { type: 'string' },
  issuer: { type: 'string' },
  'client-secret': { type: 'string' },
  'client-secret-file': { type: 'string' },
  'redirect-allow': { type: 'string', multiple: true },
  kind: { type: 'string' },
  setting: { type: 'string', multiple: true },
  secret: { type: 'string', multiple: true },
  scopes: { type: 'string' },
  'api-key-file': { type: 'string' },
  'business-id': { type: 'string' },
  status: { type: 'string' },
  'older-than': { type: 'string' },
  'dry-run': { type: 'boolean' },
  types: { type: 'string' },
  id: { type: 'string' },
  endpoint: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  environment: { type: 'string' },
  'new-key-file': { type: 'string' },
  'originator-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
