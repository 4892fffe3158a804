package aicatalog

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/wellknown-dev/discovery/internal/schemacheck"
)

// schemaJSON is a JSON Schema written for this package from the AI Catalog
// specification's text (its CDDL and prose), accepting both entry forms.
//
//go:embed schema.json
var schemaJSON []byte

const schemaID = "https://wellknown.dev/schemas/ai-catalog-1.0.schema.json"

var catalogSchema = sync.OnceValues(func() (*schemacheck.Schema, error) {
	s, err := schemacheck.Compile(schemaJSON, schemaID)
	if err != nil {
		return nil, fmt.Errorf("aicatalog: embedded schema does not compile: %w", err)
	}
	return s, nil
})
