package servercard

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/wellknown-dev/discovery/internal/schemacheck"
)

// schemaJSON is a JSON Schema written for this package from the Server Card
// extension's definitions (schema.ts and docs/discovery.md), plus the display-only
// postInstallInstructions of the MCP Registry's draft.
//
//go:embed schema.json
var schemaJSON []byte

const schemaID = "https://wellknown.dev/schemas/mcp-server-card-v1.schema.json"

var cardSchema = sync.OnceValues(func() (*schemacheck.Schema, error) {
	s, err := schemacheck.Compile(schemaJSON, schemaID)
	if err != nil {
		return nil, fmt.Errorf("servercard: embedded schema does not compile: %w", err)
	}
	return s, nil
})
