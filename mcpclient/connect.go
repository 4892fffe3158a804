package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/fence"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/servercard"
)

// Defaults used when the corresponding [Options] field is zero.
const (
	DefaultMaxResponseBytes = 32 << 20 // the answer to one call: a 16 MiB file as base64 fits
	DefaultMaxPages         = 64       // skills/list pages followed at most
	DefaultTimeout          = 30 * time.Second
	DefaultMaxListBytes     = 16 << 20 // everything one ListSkills (or ReadDirectory) receives
)

// Options configures [Connect] and [ConnectURL]. The zero value gives the defaults.
type Options struct {
	// ClientName and ClientVersion identify this client to the server. "":
	// "discovery-go" and [discovery.Version].
	ClientName, ClientVersion string

	// ProtocolVersion asks for a protocol version; the server may negotiate another.
	// "": the newest the SDK speaks (2026-07-28, falling back to 2025-11-25 initialize).
	ProtocolVersion string

	// MaxResponseBytes bounds the bytes the server may send in answer to one call
	// (one JSON-RPC request), whatever the media type of the answer: a JSON body, or
	// every event of a text/event-stream answer together, the notifications sent
	// before the result included, and any stream that resumes it. On the SSE
	// transport, whose one long-lived stream carries the answers of every call, it
	// bounds what the stream carries between two completed calls. A call whose answer
	// goes over fails with an error wrapping [ErrTooMany] that names the URL and the
	// limit, and nothing of it is used. 0: [DefaultMaxResponseBytes].
	MaxResponseBytes int64

	// MaxPages bounds how many skills/list pages ListSkills follows. 0:
	// [DefaultMaxPages].
	MaxPages int

	// MaxListBytes bounds the bytes one ListSkills may receive in all, counted as
	// received (every answer whole, as the server sent it, not only what a Skill
	// keeps), on every path: the skills/list pages of the Skills Extension or, from a
	// server without it, skill://index.json, every resources/list page of the scan and
	// every FastMCP manifest. Each answer is read only up to what is left of it. A
	// skills/list or skill://index.json past it fails the listing with [ErrTooMany]; a
	// scan or manifest past it stops there with a warning, the skills found before it
	// kept. Whatever the bytes, each Skill keeps at most the Agent Skills lengths of a
	// name and a description (64 and 1024 characters; longer ones are cut, with a
	// warning). It bounds the pages of one ReadDirectory the same way. 0:
	// [DefaultMaxListBytes].
	MaxListBytes int64

	// Limits bound one skill: files and total bytes. Zero fields:
	// agentskills.MaxResources (512) and agentskills.MaxResourceBytes (16 MiB).
	MaxSkillFiles int
	MaxSkillBytes int64

	// NoLegacy turns off the readers of pre-final drafts (skill://index.json,
	// FastMCP manifests, a resources/list scan) used when a server does not declare
	// the Skills Extension.
	NoLegacy bool

	// DraftArchives lets the draft reader use the archives a draft skill://index.json
	// offers (removed from the final extension): the archive is read whole, its digest
	// verified first when given, and unpacked in memory with agentskills.ReadArchive's
	// hardening. false: archive skills are reported and skipped.
	DraftArchives bool

	// Pins keeps what the user approved of the server's tools and skills ([PinStore];
	// the approval stores of package catalog implement it). Tools are always pinned:
	// nil keeps their pins in memory for this Session only. Skills are pinned only
	// when Pins is set: each file ReadFile hands out is checked against the pinned
	// entry and files first (a skill read through package catalog is bound to its
	// approvals already).
	Pins PinStore

	// ApprovePin is asked before a tool or skill is used whose definition is not
	// pinned, or differs from its pin, with the changes. nil: [DenyPins].
	ApprovePin PinFunc

	// Listings shares the skills/list and skills/get results a server marks public
	// (cacheScope "public") with the other Sessions given the same ListingCache, for
	// the result's ttlMs. nil: each Session keeps its results for itself (private
	// ones always do).
	Listings *ListingCache

	// Card is the MCP Server Card the server was found through, if any ([Connect] sets
	// it from the Discovery's Cards when the server is one of their remotes). Once the
	// session is open, the card is compared with what the server reports of itself
	// (name, version, title, endpoint, transport, protocol version), and each
	// disagreement is a warning in Session.Warnings: a card is advisory, never trust.
	// nil: no comparison.
	Card *servercard.Card

	// Timeout bounds connecting (discover or initialize), and each call of a Session
	// (ListSkills with all its pages, GetSkill, ReadFile, ReadDirectory) on top of the
	// caller's context. 0: [DefaultTimeout].
	Timeout time.Duration
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.ClientName == "" {
		v.ClientName = "discovery-go"
	}
	if v.ClientVersion == "" {
		v.ClientVersion = discovery.Version
	}
	if v.MaxResponseBytes <= 0 {
		v.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if v.MaxListBytes <= 0 {
		v.MaxListBytes = DefaultMaxListBytes
	}
	if v.MaxPages <= 0 {
		v.MaxPages = DefaultMaxPages
	}
	if v.MaxSkillFiles <= 0 {
		v.MaxSkillFiles = agentskills.MaxResources
	}
	if v.MaxSkillBytes <= 0 {
		v.MaxSkillBytes = agentskills.MaxResourceBytes
	}
	if v.Timeout <= 0 {
		v.Timeout = DefaultTimeout
	}
	if v.ApprovePin == nil {
		v.ApprovePin = DenyPins
	}
	return v
}

// Sentinel errors. Test for them with [errors.Is].
var (
	// ErrUnsupportedTransport: the server is listed with a transport this client does
	// not speak (websocket).
	ErrUnsupportedTransport = errors.New("mcpclient: unsupported transport")
	// ErrSkillNotFound: the server serves no skill (or file) at that URI (-32602).
	ErrSkillNotFound = errors.New("mcpclient: no such skill")
	// ErrNoSkills: the server neither declares the Skills Extension nor serves skills
	// in a draft form this client reads.
	ErrNoSkills = errors.New("mcpclient: the server serves no skills")
	// ErrTooMany: a limit was reached (pages, files, bytes); nothing past it is used.
	ErrTooMany = errors.New("mcpclient: limit exceeded")
	// ErrNotListed: a file was asked for that the held skill entry does not list; it
	// is not read (acting window, SEP-2640 §3.6).
	ErrNotListed = errors.New("mcpclient: file not listed in the skill entry")
)

// Session is a connection to one MCP server, made under the discovery policy. It is
// safe for concurrent use. Close it when done.
type Session struct {
	Name     string // the server's name as the document lists it (a label, untrusted)
	Endpoint string // the URL connected to
	Protocol string // the negotiated protocol version

	// Warnings are the disagreements between Options.Card and what the server
	// reported when the session opened (redacted; the values quoted are untrusted).
	Warnings []string

	// Skills tells what the server declared: the Skills Extension, and whether it
	// offers resources/directory/read.
	Skills Support

	cs        *mcp.ClientSession
	opts      Options
	pins      PinStore   // Options.Pins, or a store of this Session's own
	pinSkills bool       // Options.Pins was set
	pinMu     sync.Mutex // serialises reading, extending and writing a skill's pin
	toolsMu   sync.Mutex // serialises tools/list (see listTools)

	mu       sync.Mutex
	archives map[archiveKey]*agentskills.Archive // draft archives unpacked and checked (see archiveKey)
	fresh    map[string]freshness                // guarded by mu: listings kept for their ttlMs ("list", "get URI")
	gen      uint64                              // guarded by mu: list_changed notifications received
}

// Support is what a server declared of the Skills Extension.
type Support struct {
	Declared      bool // capabilities.extensions["io.modelcontextprotocol/skills"]
	DirectoryRead bool // its directoryRead setting
}

// Connect connects to srv, an MCP server d's discovery document lists, under the
// policy of c: the endpoint is checked by [discovery.Client.ConnectEndpoint] (resolved
// against where mcp.json was served from; a local (stdio) server or one without a URL
// is refused ([discovery.ErrLocalOnly], [discovery.ErrInvalidOrigin]) and nothing is
// ever spawned; a server on another origin needs ConsentConnect, asked once for the
// session with the server's name). Every request goes through the guard of
// [discovery.Client.Guard]: https (http on loopback), the private-address guard per
// request, the Client's TLS roots and proxy, no HTTP cache, the answer to each call
// capped (Options.MaxResponseBytes, event streams included), and consent
// classified by [IsRead] and named by [Subject]: reads (discover, initialize,
// notifications, ping, */list, skills/get, resources/read, resources/directory/read,
// prompts/get, and the DELETE that closes this session at its own endpoint) pass;
// tools/call, any unknown method and any body that cannot be read exactly ask
// ConsentWrite with the tool's name.
//
// Streamable HTTP is used, or SSE for servers listed with "sse"; "websocket" is
// [ErrUnsupportedTransport].
func Connect(ctx context.Context, c *discovery.Client, d *discovery.Discovery, srv mcpjson.Server, opts *Options) (*Session, error) {
	if d == nil {
		return nil, errors.New("mcpclient: Connect needs a Discovery")
	}
	if srv.Transport == mcpjson.TransportWebSocket {
		return nil, fmt.Errorf("%w: websocket (server %s)", ErrUnsupportedTransport, label(srv.Name))
	}
	if srv.Transport == mcpjson.TransportStdio {
		return nil, fmt.Errorf("%w: stdio server %s", discovery.ErrLocalOnly, label(srv.Name))
	}
	endpoint, err := c.ConnectEndpoint(ctx, d, srv)
	if err != nil {
		return nil, err
	}
	guard := func(g *discovery.GuardOptions) (http.RoundTripper, error) { return c.Guard(d, g) }
	return connect(ctx, guard, endpoint, srv.Name, srv.Transport == mcpjson.TransportSSE, withCard(opts, d, srv))
}

// withCard returns opts with Card set to the Server Card of d that lists srv, when the
// caller set none: a server found through a card is compared with it on connecting.
func withCard(opts *Options, d *discovery.Discovery, srv mcpjson.Server) *Options {
	if opts != nil && opts.Card != nil {
		return opts
	}
	if d.All == nil {
		return opts
	}
	for _, k := range d.All.Cards {
		for _, s := range k.Servers() {
			if s.URL == srv.URL {
				var o Options
				if opts != nil {
					o = *opts
				}
				o.Card = k.Card
				return &o
			}
		}
	}
	return opts
}

// ConnectURL connects to the MCP endpoint rawURL (typed by a person, say) through c:
// its origin is the discovery origin of the session, so nothing needs cross-origin
// consent, and all the other rules of [Connect] apply. sse selects the SSE transport.
func ConnectURL(ctx context.Context, c *discovery.Client, rawURL string, sse bool, opts *Options) (*Session, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, fmt.Errorf("%w: not an absolute endpoint URL", discovery.ErrInvalidOrigin)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: endpoint URL carries userinfo", discovery.ErrInvalidOrigin)
	}
	o, err := discovery.ParseOrigin(u.String())
	if err != nil {
		return nil, err
	}
	guard := func(g *discovery.GuardOptions) (http.RoundTripper, error) {
		return c.Guard(&discovery.Discovery{Origin: o}, g)
	}
	return connect(ctx, guard, u, "", sse, opts)
}

func connect(ctx context.Context, guard func(*discovery.GuardOptions) (http.RoundTripper, error), endpoint *url.URL,
	name string, sse bool, opts *Options) (*Session, error) {
	o := opts.withDefaults()
	target, err := discovery.ParseOrigin(endpoint.String())
	if err != nil {
		return nil, err
	}
	rt, err := guard(&discovery.GuardOptions{
		IsRead:           func(req *http.Request) bool { return closesSession(req, endpoint) || IsRead(req) },
		Subject:          Subject,
		Approved:         []discovery.Origin{target}, // the connection itself was approved once
		MaxResponseBytes: o.MaxResponseBytes,
	})
	if err != nil {
		return nil, err
	}
	// The guard caps each body but event streams; responseCap bounds the answer to
	// each call, event streams included, and says which call and URL went over.
	rc := &responseCap{base: rt, max: o.MaxResponseBytes}
	hc := &http.Client{
		Transport: rc,
		// No redirects: an MCP endpoint that moves is not followed silently.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var transport mcp.Transport
	if sse {
		transport = streamTransport{&mcp.SSEClientTransport{Endpoint: endpoint.String(), HTTPClient: hc, MaxEventSize: int(o.MaxResponseBytes)}}
	} else {
		// The standalone GET stream carries the server's notifications on protocols
		// before 2026-07-28, notifications/resources/list_changed among them (which
		// drops the listings kept for their ttlMs). It is a read, bounded between
		// calls as the SSE transport's stream is (see responseCap); a server that
		// does not offer it answers 405 and the session goes on without it.
		transport = &mcp.StreamableClientTransport{Endpoint: endpoint.String(), HTTPClient: hc, MaxRetries: -1,
			MaxEventSize: int(o.MaxResponseBytes)}
	}
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(agentskills.ExtensionID, map[string]any{})
	var session atomic.Pointer[Session] // set once connected
	client := mcp.NewClient(&mcp.Implementation{Name: o.ClientName, Version: o.ClientVersion}, &mcp.ClientOptions{
		Capabilities: caps,
		// The server's resources, skills among them, changed: what was kept of its
		// listings is dropped.
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			if s := session.Load(); s != nil {
				s.listChanged()
			}
		},
	})
	client.AddSendingMiddleware(rc.middleware)
	client.AddSendingMiddleware(noResourceCache) // outermost: see resourcecache.go
	for _, m := range []string{methodList, methodGet, methodDirRead} {
		if err := registerMethod(client, m); err != nil {
			return nil, err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cs, err := client.Connect(cctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: o.ProtocolVersion})
	if err != nil {
		return nil, fmt.Errorf("mcpclient: connect to %s: %w", redactURL(endpoint), scrub(err))
	}
	s := &Session{Name: fence.Clean(name, "", 64), Endpoint: redactURL(endpoint), cs: cs, opts: o, pins: o.Pins, pinSkills: o.Pins != nil}
	if s.pins == nil {
		s.pins = NewMemoryPins()
	}
	session.Store(s)
	s.Warnings = cardWarnings(o.Card, cs.InitializeResult(), endpoint.String(), sse)
	if ir := cs.InitializeResult(); ir != nil {
		s.Protocol = ir.ProtocolVersion
		if ir.Capabilities != nil {
			if raw, err := json.Marshal(ir.Capabilities); err == nil {
				s.Skills.Declared, s.Skills.DirectoryRead, _ = agentskills.Capabilities(raw)
			}
		}
	}
	return s, nil
}

// streamTransport connects a transport whose one GET stream carries the whole session
// (the SSE transport) with a context that outlives connecting: the SDK opens that
// stream with the context of Connect, and connect's deadline would cut it, and the
// session, as soon as connect returned. The connecting context still bounds the
// connection until the stream is open; after that, Close ends the stream.
type streamTransport struct{ mcp.Transport }

// Connect implements mcp.Transport.
func (t streamTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.Transport.Connect(sctx)
	if !stop() { // ctx ended while connecting
		if err == nil {
			conn.Close()
			err = context.Cause(ctx)
		}
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &streamConn{Connection: conn, cancel: cancel}, nil
}

// streamConn is a connection of streamTransport: closing it ends its stream.
type streamConn struct {
	mcp.Connection
	cancel context.CancelFunc
}

// Close implements mcp.Connection.
func (c *streamConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// Close ends the session (a DELETE for a stateful Streamable HTTP session).
func (s *Session) Close() error { return s.cs.Close() }

// ServerInfo returns the name and version the server reported (untrusted labels).
func (s *Session) ServerInfo() (name, version string) {
	if ir := s.cs.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		return ir.ServerInfo.Name, ir.ServerInfo.Version
	}
	return "", ""
}

// readMethods are the JSON-RPC methods that only read. Anything else, tools/call
// first, is a write: it needs ConsentWrite.
var readMethods = map[string]bool{
	"server/discover": true, "initialize": true, "ping": true, "skills/get": true,
	"resources/read": true, "resources/directory/read": true, "prompts/get": true,
	"subscriptions/listen": true, // opens the stream of the notifications asked for (2026-07-28)
}

// maxPeek bounds the request body IsRead reads to classify a request.
const maxPeek = 4 << 20

// IsRead classifies an MCP (or any JSON-RPC over HTTP) request for
// [discovery.GuardOptions.IsRead]: GET, HEAD and OPTIONS are reads; a POST is a read
// when its body is exactly one JSON-RPC message, or one batch (array) of them, and
// every message in it is a read method (server/discover, initialize,
// notifications/*, ping, */list, skills/get, resources/read,
// resources/directory/read, prompts/get) or a response. Everything else is a write:
// tools/call and any unknown method; a body that is malformed, ambiguous (keys that
// differ only in case, duplicate keys, a tools/call without a string tool name) or
// holds anything but whitespace after its first JSON value (a second message, NDJSON,
// trailing bytes: a server reading a stream of messages would run them); a body too
// large to read; every other method, DELETE included, since IsRead does not know the
// session's endpoint ([Connect] and [ConnectURL] let through the DELETE that closes
// their own session, sent to the exact endpoint they connected to). The policy guard
// also treats upgrades and method overrides as writes whatever IsRead says. The body
// is restored.
func IsRead(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	case http.MethodPost:
	default:
		return false
	}
	msgs, ok := peekMessages(req)
	if !ok || len(msgs) == 0 {
		return false
	}
	for _, m := range msgs {
		if m.bad {
			return false
		}
		if m.Method == "" {
			continue // a response to the server's own request
		}
		if !readMethods[m.Method] && !strings.HasPrefix(m.Method, "notifications/") && !strings.HasSuffix(m.Method, "/list") {
			return false
		}
	}
	return true
}

// closesSession reports the DELETE that ends an MCP session: sent with an
// Mcp-Session-Id to the very endpoint the session was opened at (same scheme, host,
// port, path and query). A DELETE anywhere else is a write like any other.
func closesSession(req *http.Request, endpoint *url.URL) bool {
	if req.Method != http.MethodDelete || req.Header.Get("Mcp-Session-Id") == "" || req.URL == nil || endpoint == nil {
		return false
	}
	if (req.Body != nil && req.Body != http.NoBody) && req.ContentLength != 0 {
		return false // closing a session sends no body
	}
	a, err := discovery.ParseOrigin(req.URL.String())
	if err != nil {
		return false
	}
	b, err := discovery.ParseOrigin(endpoint.String())
	if err != nil || a != b {
		return false
	}
	return req.URL.EscapedPath() == endpoint.EscapedPath() && req.URL.RawQuery == endpoint.RawQuery
}

// Subject names what an MCP request is about, for consent prompts: the tool of a
// tools/call, else the method, each message of a batch in turn. A POST body it cannot
// read exactly (malformed, ambiguous, followed by more data, too large) is named
// [discovery.AmbiguousSubject], alone or as part of the list: a consent request with
// that subject is for that request only, since one such call cannot be told from the
// next. Other requests (GET, DELETE) have no subject ("").
func Subject(req *http.Request) string {
	if req.Method != http.MethodPost {
		return ""
	}
	msgs, ok := peekMessages(req)
	if !ok || len(msgs) == 0 {
		return discovery.AmbiguousSubject
	}
	var parts []string
	for _, m := range msgs {
		switch {
		case m.bad:
			parts = append(parts, discovery.AmbiguousSubject)
		case m.Method == "tools/call" && m.Name != "":
			parts = append(parts, "tool "+m.Name)
		case m.Method != "":
			parts = append(parts, m.Method)
		}
	}
	return strings.Join(parts, ", ")
}

type message struct {
	Method string
	Name   string // params.name
	bad    bool   // ambiguous: a key that only differs in case, or a duplicate
}

// peekMessages reads the JSON-RPC message (or batch) in a POST body and restores the
// body whole. A body over maxPeek bytes is not classified (nil, false).
func peekMessages(req *http.Request) ([]message, bool) {
	if req.Method != http.MethodPost || req.Body == nil {
		return nil, false
	}
	orig, getBody := req.Body, req.GetBody
	data, err := io.ReadAll(io.LimitReader(orig, maxPeek+1))
	if err != nil || len(data) > maxPeek {
		// Too large to classify: give the transport everything, the part read first.
		req.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(data), orig), orig}
		req.GetBody = getBody
		return nil, false
	}
	orig.Close()
	req.Body = io.NopCloser(bytes.NewReader(data))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		// json.Unmarshal refuses anything after the array but whitespace.
		var batch []json.RawMessage
		if json.Unmarshal(data, &batch) != nil {
			return nil, false
		}
		out := make([]message, 0, len(batch))
		for _, m := range batch {
			msg, ok := decodeMessage(m)
			if !ok {
				return nil, false
			}
			out = append(out, msg)
		}
		return out, true
	}
	m, ok := decodeMessage(data)
	return []message{m}, ok
}

// decodeMessage reads method and params.name exactly as a case-sensitive JSON-RPC
// server would. encoding/json matches keys without regard to case and keeps the last
// duplicate, so a body with "method" and "Method" (or two "method" keys) could be read
// here as one method and by the server as another: such a message is marked bad, and
// bad messages are writes.
func decodeMessage(data []byte) (message, bool) {
	fields, ok := objectFields(data)
	if !ok {
		return message{}, false
	}
	var m message
	m.bad = fields[ambiguousKey] != nil || spelledOddly(fields, "method", "params", "result", "error")
	if raw, ok := fields["method"]; ok {
		if json.Unmarshal(raw, &m.Method) != nil {
			return message{}, false
		}
	} else if fields["result"] == nil && fields["error"] == nil {
		m.bad = true // neither a request nor a response
	}
	if raw, ok := fields["params"]; ok {
		if params, ok := objectFields(raw); ok {
			if n, ok := params["name"]; ok {
				_ = json.Unmarshal(n, &m.Name)
			}
			if params[ambiguousKey] != nil || spelledOddly(params, "name") {
				m.bad = true
			}
		}
	}
	if m.Method == "tools/call" && m.Name == "" {
		m.bad = true // no tool to name: every such call would share one subject
	}
	return m, true
}

// spelledOddly reports a key that equals one of names when case is ignored but is not
// spelled exactly so ("Method"): servers disagree on such keys.
func spelledOddly(fields map[string]json.RawMessage, names ...string) bool {
	for k := range fields {
		for _, n := range names {
			if k != n && strings.EqualFold(k, n) {
				return true
			}
		}
	}
	return false
}

// ambiguousKey marks, in objectFields' result, an object whose keys collide when case
// is ignored.
const ambiguousKey = "\x00ambiguous"

// objectFields returns the members of a JSON object by exact key, with ambiguousKey set
// when two keys are equal ignoring case. data must hold that one object and nothing
// else but whitespace.
func objectFields(data []byte) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	out := map[string]json.RawMessage{}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := t.(string)
		if !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		folded := strings.ToLower(key)
		if seen[folded] {
			out[ambiguousKey] = json.RawMessage("true")
		}
		seen[folded] = true
		out[key] = v
	}
	// The object must end, and nothing but whitespace may follow it: a second value
	// ({"method":"ping"}{"method":"tools/call"}, NDJSON, trailing bytes) is what a
	// server reading a stream of messages would run next.
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return out, true
}

// scrubbed is an error whose text is redacted: the SDK's and net/http's errors quote the
// endpoint URL, which the site chose and which may carry a token in its query.
type scrubbed struct{ err error }

// Error implements the error interface.
func (e scrubbed) Error() string { return discovery.Redact(e.err.Error()) }

// Unwrap returns the original error.
func (e scrubbed) Unwrap() error { return e.err }

func scrub(err error) error {
	if err == nil {
		return nil
	}
	return scrubbed{err}
}
