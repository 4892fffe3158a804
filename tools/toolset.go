package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/catalog"
)

const (
	// DefaultTextBudget is the most bytes of Result.Text when Options.TextBudget is 0.
	DefaultTextBudget = 8 << 10
	// MinTextBudget is the least budget a Toolset uses: room for a fence, its label
	// and a line saying what was cut. Smaller Options.TextBudget values are raised to it.
	MinTextBudget = 1 << 10
)

// Tool describes one tool for a model's function-calling API. It is plain data; the
// zero Tool describes nothing.
type Tool struct {
	Name        string // such as "discover_site"
	Description string // for the model: what the tool does and when to use it
	// InputSchema is the JSON Schema (draft 2020-12) of the input: an object.
	InputSchema json.RawMessage
	// OutputSchema is the JSON Schema (draft 2020-12) of Result.Structured, an object.
	OutputSchema json.RawMessage
}

// Result is what a tool returns. It is plain data, safe to read concurrently.
type Result struct {
	// Text is for the model, at most the Toolset's text budget in bytes. Published
	// content in it is fenced and labelled as untrusted data; when something was cut,
	// a line says what.
	Text string
	// Structured is the same answer as data for programs: a value that encodes to a
	// JSON object matching the tool's OutputSchema. Its lists are bounded too.
	Structured any
}

// Handler runs one tool on an input (a JSON object). It validates the input against
// the tool's schema first. Handlers are safe for concurrent use.
type Handler func(ctx context.Context, input json.RawMessage) (Result, error)

// ApprovalRequest describes a skill the model wants to read that the catalog does not
// yet consider approved.
type ApprovalRequest struct {
	// Entry is the skill as the catalog lists it. Its strings other than Name and
	// Kind were published by the skill's author, a site or a server: untrusted, for
	// display only.
	Entry catalog.Entry
	// Digest is the content the approval binds to, never empty: the digest the
	// listing published (the content was checked against it) or, when it gives none,
	// a digest of the SKILL.md and files that were read. Approving it lets the model
	// read this content, and a later change needs approval again.
	Digest string
}

// ApprovalFunc asks the user whether the model may read the skill req describes.
//
// It is called by the read_skill tool when catalog.Catalog.Activate reports
// catalog.ErrNeedsApproval, never while the Toolset holds a lock, and may be called
// from several goroutines at once (two calls for the same skill may overlap): it must
// be safe for concurrent use. It should return promptly, or as soon as ctx is done.
// Returning true records the approval (catalog.Catalog.Approve) and activates the
// skill; false leaves it unapproved and the tool's error tells the model the user
// has not approved it. Returning an error fails the call with that error wrapped.
// req must not be retained or modified.
type ApprovalFunc func(ctx context.Context, req *ApprovalRequest) (bool, error)

// DenyApprovals is the default ApprovalFunc: it approves nothing, so the model is told
// to ask the user.
func DenyApprovals(context.Context, *ApprovalRequest) (bool, error) { return false, nil }

// Options configures a Toolset. A nil *Options, or the zero Options, gives the
// defaults described on each field. New copies the struct.
type Options struct {
	// TextBudget is the most bytes of Result.Text. 0 or negative:
	// [DefaultTextBudget]; values under [MinTextBudget] are raised to it.
	TextBudget int

	// Approve is asked when a skill needs the user's approval before read_skill may
	// return it (the Catalog was built with an ApprovalStore). nil: [DenyApprovals],
	// so read_skill fails with an error telling the model to ask the user.
	Approve ApprovalFunc
}

// Toolset serves the tools of this package over one discovery Client and one skills
// Catalog. Create it with [New]; the zero Toolset is not usable (its calls return
// [ErrNotConfigured]). A Toolset is safe for concurrent use by multiple goroutines.
type Toolset struct {
	client    *discovery.Client
	cat       *catalog.Catalog
	budget    int
	approve   ApprovalFunc
	noApprove bool             // no Options.Approve: nobody can approve a skill
	byName    map[string]entry // immutable after New

	mu      sync.Mutex            // guards origins
	origins map[string]*webOrigin // origins added to the catalog by list_skills, by canonical origin

	memo memo // skills.md renderings of discover_site
}

// entry is a tool with its handler.
type entry struct {
	tool Tool
	run  func(t *Toolset, ctx context.Context, in *compiled, input json.RawMessage) (Result, error)
}

// handlers maps each tool's name to its implementation.
var handlers = map[string]func(t *Toolset, ctx context.Context, in *compiled, input json.RawMessage) (Result, error){
	DiscoverSite:   (*Toolset).discoverSite,
	ListSkills:     (*Toolset).listSkills,
	ReadSkill:      (*Toolset).readSkill,
	ReadSkillFile:  (*Toolset).readSkillFile,
	ListMCPServers: (*Toolset).listMCPServers,
}

// New returns a Toolset over client and cat. A nil client or cat is allowed: the
// tools that need it fail with [ErrNotConfigured]. Build client with
// discovery.Options.InsecureAllowPrivateOrigins only where a person chooses the origins: a
// model that chooses them can be talked into private addresses.
func New(client *discovery.Client, cat *catalog.Catalog, opts *Options) *Toolset {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.TextBudget <= 0:
		o.TextBudget = DefaultTextBudget
	case o.TextBudget < MinTextBudget:
		o.TextBudget = MinTextBudget
	}
	noApprove := o.Approve == nil
	if noApprove {
		o.Approve = DenyApprovals
	}
	t := &Toolset{client: client, cat: cat, budget: o.TextBudget, approve: o.Approve, noApprove: noApprove,
		byName: make(map[string]entry, len(definitions)), origins: map[string]*webOrigin{}}
	for _, d := range definitions {
		t.byName[d.Name] = entry{tool: d, run: handlers[d.Name]}
	}
	return t
}

// Tools returns the tools, in a fixed order: discover_site, list_skills, read_skill,
// read_skill_file, list_mcp_servers. The schemas are copies the caller may keep.
func (t *Toolset) Tools() []Tool {
	out := make([]Tool, len(definitions))
	for i, d := range definitions {
		d.InputSchema = slices.Clone(d.InputSchema)
		d.OutputSchema = slices.Clone(d.OutputSchema)
		out[i] = d
	}
	return out
}

// Handler returns the handler of the tool named name, or nil if there is none.
func (t *Toolset) Handler(name string) Handler {
	if _, ok := handlers[name]; !ok {
		return nil
	}
	return func(ctx context.Context, input json.RawMessage) (Result, error) {
		return t.Call(ctx, name, input)
	}
}

// Call runs the tool named name on input, a JSON object (empty or null counts as
// {}). An input that does not match the tool's schema is an [*InputError]; an
// unknown name wraps [ErrUnknownTool]. Result.Text is at most the text budget.
func (t *Toolset) Call(ctx context.Context, name string, input json.RawMessage) (Result, error) {
	if t == nil || t.byName == nil {
		return Result{}, fmt.Errorf("%w: use tools.New", ErrNotConfigured)
	}
	e, ok := t.byName[name]
	if !ok {
		names := make([]string, len(definitions))
		for i, d := range definitions {
			names[i] = d.Name
		}
		return Result{}, fmt.Errorf("%w %s: the tools are %s", ErrUnknownTool, quote(name, 64), strings.Join(names, ", "))
	}
	schemas, err := compiledSchemas()
	if err != nil {
		return Result{}, err
	}
	res, err := e.run(t, ctx, schemas[name], input)
	if err != nil {
		return Result{}, t.fail(name, err)
	}
	res.Text = bound(res.Text, t.budget)
	return res, nil
}

// CallForModel runs the tool named name on input, as [Toolset.Call] does, and returns
// what a model should read: the result's Text, or, when the call failed, the error's
// text with isError true, to send back as a failed tool result (the model reads the
// failure and acts on it; nothing is returned as a Go error). Error text quotes what
// was published only inside a fence, as Text does. This is what the MCP server and
// the LLM SDK adapters send.
func (t *Toolset) CallForModel(ctx context.Context, name string, input json.RawMessage) (text string, isError bool) {
	res, err := t.Call(ctx, name, input)
	if err != nil {
		return err.Error(), true
	}
	return res.Text, false
}
