package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpjson"
)

// DefaultConcurrency is how many servers DiscoverSkills talks to at once.
const DefaultConcurrency = 4

// ServerSkills is what one server listed by an origin gave.
type ServerSkills struct {
	Server  mcpjson.Server // as the document lists it
	Session *Session       // open, for reading; nil when Err is set. Closed by OriginSkills.Close
	Listing *Listing       // nil when Err is set
	Err     error          // why this server gave nothing: consent, local, transport, no skills...
}

// OriginSkills is the skills of every MCP server an origin lists.
type OriginSkills struct {
	Discovery *discovery.Discovery
	Servers   []ServerSkills // in the document's order
}

// Close closes every open session.
func (o *OriginSkills) Close() error {
	var errs []error
	for _, s := range o.Servers {
		if s.Session != nil {
			errs = append(errs, s.Session.Close())
		}
	}
	return errors.Join(errs...)
}

// DiscoverSkills goes from an origin to the skills its MCP servers serve, in one call:
// origin → mcp.json ([discovery.Client.Structured]) → each remote server listed
// ([Connect]: ConsentConnect per server on another origin; local servers are reported,
// never run) → its skills ([Session.ListSkills]). Servers are contacted concurrently,
// at most [DefaultConcurrency] at a time. Each server's failure is reported in its
// ServerSkills; the call fails only when discovery does, when the origin lists no
// server ([ErrNoServers]), or when its mcp.json could not be read (malformed, an HTTP
// error) while its skills.md could: that error wraps the cause, never ErrNoServers.
// Close the result when done.
func DiscoverSkills(ctx context.Context, c *discovery.Client, origin string, opts *Options) (*OriginSkills, error) {
	d, err := c.Structured(ctx, origin)
	if err != nil {
		return nil, err
	}
	if d.MCP == nil {
		// A site that publishes an mcp.json it cannot be read from is not a site that
		// lists no server: say why, and leave ErrNoServers out of the chain.
		for _, f := range d.Fetches {
			if f.Err != nil && strings.HasSuffix(f.URL, discovery.MCPPath) {
				return nil, fmt.Errorf("mcpclient: the origin's mcp.json could not be read, so its MCP servers are unknown: %w", f.Err)
			}
		}
	}
	if d.MCP == nil || len(d.MCP.Servers) == 0 {
		return nil, ErrNoServers
	}
	out := &OriginSkills{Discovery: d, Servers: make([]ServerSkills, len(d.MCP.Servers))}
	sem := make(chan struct{}, DefaultConcurrency)
	var wg sync.WaitGroup
	for i, srv := range d.MCP.Servers {
		out.Servers[i].Server = srv
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				out.Servers[i].Err = ctx.Err()
				return
			}
			s, err := Connect(ctx, c, d, srv, opts)
			if err != nil {
				out.Servers[i].Err = err
				return
			}
			l, err := s.ListSkills(ctx)
			if err != nil {
				s.Close()
				out.Servers[i].Err = err
				return
			}
			out.Servers[i].Session, out.Servers[i].Listing = s, l
		})
	}
	wg.Wait()
	return out, nil
}

// ErrNoServers: the origin publishes no mcp.json, or its mcp.json lists no MCP server.
var ErrNoServers = errors.New("mcpclient: the origin lists no MCP server")
