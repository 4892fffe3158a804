// Package discovery lets an agent learn, safely, how to use a web site's API: it
// reads the guidance the site publishes at /.well-known/skills.md (the primary
// contract, skill-discovery 2026-06-13) and, when structured data is needed or
// skills.md is absent, /.well-known/mcp.json (mcp-discovery 2026-04-12).
//
// Quick start:
//
//	c, err := discovery.NewClient(&discovery.Options{Consent: askUser})
//	if err != nil {
//		return err
//	}
//	d, err := c.Discover(ctx, "docs.example.org")
//	switch {
//	case errors.Is(err, discovery.ErrNotPublished):
//		return nil // the site publishes no guidance: not a failure
//	case err != nil:
//		return err
//	}
//	if d.Guide != nil { // nil when the origin publishes only mcp.json
//		fmt.Println(d.Guide.Title, d.Guide.BaseURL)
//	}
//	guard, err := c.Guard(d, nil) // writes and other origins ask askUser
//	if err != nil {
//		return err
//	}
//	api := &http.Client{Transport: guard}
//
// The package-level [Discover] uses a private default Client with the zero [Options].
//
// The repository's docs folder goes further: a step-by-step guide (docs/guide.md), the
// security model with every default (docs/security.md), MCP servers and their skills
// (docs/mcp.md), logs, metrics and traces (docs/observability.md), processes sharing a
// cache on Redis (docs/fleet.md), and the wellknown command (docs/wellknown.md).
//
// # Processing model
//
// Two words are kept apart: the guide is the skills.md document (Discovery.Guide,
// package skillsmd); a skill is an Agent Skill, a SKILL.md folder (ListSkills,
// GetSkill, package agentskills).
//
// [Client.Discover] fetches skills.md; when it is published and parses, that is the
// answer. When it is absent (404, 410, or an HTML page served in its place) the Client
// fetches mcp.json and validates it against the JSON Schema of its spec_version. When
// neither is published the error is [ErrNotPublished]. [Client.Structured] fetches both,
// in parallel, for callers that need servers and tools. [Client.DiscoverAll] adds the AI
// Catalog with its nested catalogs and Server Cards, the Agent Skills index and /skill.md
// (Discovery.All: Published.Families says what came from where). One call never fetches the same
// document twice. The parsers are pure functions over bytes.
//
// # Agent Skills
//
// [Client.ListSkills] reads a site's Agent Skills index (/.well-known/agent-skills/
// index.json, then /.well-known/skills/index.json; when neither is published, the one
// the agent-skills entry of the site's AI Catalog lists: one request more for the
// catalog, then its nested catalogs and that index) under the same rules, and
// [Client.GetSkill] fetches one skill: its digest is verified before anything is
// parsed or unpacked, archives are unpacked with the hardening of
// agentskills.ReadArchive, and an artifact on another origin needs [ConsentArtifact].
// The agentskills package holds the pure parts: SKILL.md, skill:// URIs, digests, the
// index, archives, MCP Skills Extension entries, and the local folder scan.
//
// # MCP servers and their skills
//
// [Client.ConnectEndpoint] checks a server that mcp.json lists (no URL and local
// commands refused, [ErrLocalOnly]; ConsentConnect once for another origin) and
// returns its endpoint; [Client.Guard] gives the policy guard, with a classifier
// ([GuardOptions].IsRead) for APIs where every call is a POST. A [Discovery] is plain
// data: what acts on it (guarding, connecting, fetching) is a method of the Client. The mcpclient package builds
// on both: it connects with the official MCP Go SDK and reads skills through the
// Skills Extension (SEP-2640), verifying every file; the skillserver package serves a
// folder of skills with the extension.
//
// # Security
//
// Security is the default; nothing needs to be turned on.
//
//   - HTTPS only, with certificate verification and TLS 1.2 or later. Plain http is
//     accepted only for loopback origins (localhost, 127.0.0.0/8, ::1), as the spec
//     allows, so local testing needs no option. Anything else fails with
//     [ErrInsecureOrigin].
//   - Redirects: at most five hops ([ErrTooManyRedirects]); every hop is checked, none
//     may go from https to http, and a hop to another origin needs consent
//     ([ConsentRedirect]), else the fetch stops after exactly one request with
//     [ErrCrossOrigin], naming the target.
//   - No cookies, no Authorization header and no credentials are sent on discovery
//     fetches; a caller's cookie jar is ignored.
//   - Private origins are refused by default: an origin that is localhost (or
//     *.localhost) or a loopback or private IP literal fails with [ErrPrivateAddress]
//     before any request, because a model that chooses origins can be told to choose
//     http://localhost:8080/admin or https://169.254.169.254. Set
//     [Options.InsecureAllowPrivateOrigins] where a person chooses the origin.
//   - No connection from a public origin reaches a private address: loopback, RFC 1918,
//     link-local (cloud metadata at 169.254.169.254), CGNAT, unique-local, site-local,
//     multicast, unspecified, or an IPv4-mapped, IPv4-compatible, IPv4-translated,
//     NAT64 (well-known and local-use) or 6to4 form of these ([ErrPrivateAddress]). The
//     check runs in the dialer on the resolved address actually connected to, so DNS
//     rebinding cannot slip past it, and it covers every redirect hop, skill artifacts
//     and the agent's calls through [Client.Guard]. Connections are pooled per
//     policy class, so a connection opened for a private origin is never reused by a
//     public origin's request. A private origin (allowed as above) may reach private
//     addresses.
//   - Site-supplied userinfo is never sent. The caller's Authorization, Cookie and
//     Proxy-Authorization headers, and its API key and token headers (X-Api-Key,
//     X-Auth-Token, the header mcp.json names), go to another origin only when the
//     consent request said so ([ConsentRequest].Credentials) and the answer was yes.
//   - Origins are canonicalised before any comparison: IDNs to punycode, default ports
//     dropped, numeric host names that parsers read as IPv4 refused.
//   - Bodies are capped after decompression (1 MiB by default, [ErrTooLarge]); reading
//     stops at the cap. A body that is not UTF-8 text, or holds NUL bytes, is refused.
//   - Documents are untrusted data. They are never executed or rendered, links with
//     javascript:, data:, file: or userinfo are flagged, and mcp.json entries whose URL
//     is not https (or loopback http) are skipped with a warning.
//   - The agent's own calls go through [Client.Guard]: same-origin reads pass;
//     writes ([ConsentWrite]: other methods, and upgrades, CONNECT and method
//     overrides whatever the method) and calls to other origins ([ConsentCrossOrigin],
//     which says whether a credential travels in any header or query parameter) ask
//     the [ConsentFunc]. Credentials added by a GuardOptions.Base transport are
//     invisible to the guard and belong outside it. [Client.ConnectEndpoint] asks
//     before connecting to an MCP server or tool listed on another origin
//     ([ConsentConnect]).
//
// The only ways to weaken a default are in [Options], and each opens exactly one door:
//
//   - Consent: a function that says yes allows that one action (a redirect to another
//     origin, a connection to a listed server elsewhere, a cross-origin call, a write).
//   - InsecureAllowPrivateOrigins: origins that are themselves private may be discovered.
//   - InsecureAllowPrivateHosts: the named hosts, and only they, may resolve to private
//     addresses; naming a host does not make it a private origin.
//   - HTTPClient: its Transport supplies TLS settings (say, a private root CA). An
//     *http.Transport is cloned and the private-address guard is put on its dialer; any
//     other RoundTripper gets a resolve-then-check guard per request, which cannot see
//     connections the RoundTripper makes on its own. When the transport uses a proxy,
//     the guard checks the proxy's address (allow a proxy on a private network with
//     InsecureAllowPrivateHosts), and resolves and checks each proxied request's
//     target host before the proxy is asked, since the proxy connects on its own.
//   - MaxDocumentBytes, MaxRetries, MaxRetryAfter, AttemptTimeout, DocumentTimeout,
//     SkillTimeout and MaxStale move bounds; none can be set to "unbounded".
//
// # Consent
//
// A [ConsentFunc] is the host's hook to ask the user. A nil one behaves as [DenyAll]:
// consent fails closed. Denial yields an error wrapping [ErrConsentDenied] (or
// [ErrCrossOrigin] for a redirect); an error from the hook aborts the call and is
// wrapped, never retried or hidden behind a cached copy.
//
// # Caching and retries
//
// Each fetch goes through an HTTP cache (gregjones/httpcache: ETag and Last-Modified
// revalidation, max-age freshness; [Options.Cache], memory by default, see
// [NewDiskCache]) and, beneath it, retries (hashicorp/go-retryablehttp): at most three
// attempts on connection errors, 408, 429 and 5xx but 501, with exponential backoff and
// jitter, Retry-After honoured up to 10 s (longer means give up at once), a 10 s limit
// per attempt, and no retry of TLS or policy failures. Cancelling the context stops a
// backoff at once. A freshness lifetime over a day (max-age or Expires) is cut to a
// day: a copy the site served once is revalidated at least daily, so a document it
// fixed or withdrew since is seen.
//
// A separate last-good store ([Options.LastGood]) keeps each document that parsed and
// validated. When a later fetch fails (network, 5xx, 429, a body over the cap, or
// content that does not parse), the last good copy is served with [Fetch.Source] set to
// [SourceStale], the cause in [Fetch.Cause], and a [Warning]; copies older than
// [Options.MaxStale] (7 days) are not served. Only this logic serves old copies: the
// HTTP cache's own stale-if-error answers are undone, so a failure is never reported
// as a fresh 200. A 404 or 410 is authoritative: the
// document is absent and its last good copy is dropped.
//
// Above the HTTP cache sit two in-memory shortcuts with the same semantics. A
// discovery whose documents are all fresh is answered from memory until the first of
// them goes stale (Source cache, no request, well under a microsecond and a couple of
// allocations); and a stale document this Client fetched before is revalidated with
// a conditional request sent under the cache, a 304 answered from the remembered copy
// without decoding and re-storing the serialised response. Every in-process tier is
// bounded (least recently used entries go first): [NewMemoryCache] 64 MiB,
// [NewMemoryLastGood] 32 MiB, the parse memo and the fresh answers 32 MiB each, the
// remembered copies 16 MiB.
//
// # Fleets
//
// Processes that share a [Cache] and a [LastGoodStore] (package redisstore keeps both
// on Redis, with a local tier that serves when Redis is slow or down) can share
// fetches too: with [Options.FleetLock], the process that takes the lock for a URL
// fetches it, and the others wait (at most [Options.FleetWait]) and read the answer
// from the shared cache. A lock that fails, or a holder that dies, costs a wait, never
// a failure.
//
// # Observability
//
// Every fetch, retry, stale answer, consent question and answer, guard refusal and
// fleet wait is an [Event]: logged to [Options.Logger] with stable keys ([LogEvent]),
// passed to [Options.Observe] for metrics, and, with [Options.Trace], wrapped in spans
// per discovery and per fetch. [Options.WrapTransport] instruments every request,
// outside the private-address guard. Package discoveryotel provides all three for
// OpenTelemetry; the core does not import it, and sends no trace headers.
//
// # Errors
//
// Sentinels ([ErrInvalidOrigin], [ErrInsecureOrigin], [ErrCrossOrigin],
// [ErrConsentDenied], [ErrNotPublished], [ErrTooLarge], [ErrTooManyRedirects],
// [ErrRetryAfterTooLong], [ErrPrivateAddress]) are tested with [errors.Is].
// [*PrivateAddressError] names the host and the address it resolved to. [*HTTPError] carries an
// unexpected status and [*FetchError] any other failure of one document; parser errors
// ([*skillsmd.SyntaxError] with a byte offset and line, [*mcpjson.SyntaxError] with line
// and column, [*mcpjson.ValidationError] with JSON pointers) are reached with
// [errors.As]. A cancelled call satisfies errors.Is(err, context.Canceled). Messages
// never contain userinfo, query strings or fragments.
//
// # Concurrency
//
// A [Client] is immutable after [NewClient] and safe for concurrent use by multiple
// goroutines. Concurrent calls that need the same document share one request; the
// shared request is cancelled only when every caller waiting for it has given up.
// [Client.CloseIdleConnections] releases pooled connections. The [Cache], [LastGoodStore] and [ConsentFunc] it is given must be safe
// for concurrent use too. A [Discovery] is plain data, safe to read concurrently.
package discovery
