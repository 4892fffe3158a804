package discoveryotel

import (
	"context"
	"errors"
	"strconv"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// otherError is the error.type of a failure no rule names, as the semantic conventions
// spell it.
const otherError = "_OTHER"

// ErrorType returns the short, stable name this package records as error.type (and as
// the reason of discovery.guard.refusals) for err, or "" for nil:
//
//   - "canceled", "timeout": the context was cancelled or its deadline passed;
//   - "not_published", "invalid_origin", "insecure_origin", "cross_origin",
//     "private_address", "consent_denied", "too_large", "too_many_redirects",
//     "retry_after_too_long", "local_only": err wraps the discovery sentinel of that
//     name ([discovery.ErrNotPublished]...);
//   - "invalid_document": the document failed to parse or validate;
//   - the HTTP status code, such as "503": a [*discovery.HTTPError] with no more
//     specific cause;
//   - "_OTHER": anything else, such as a network failure.
//
// The set of names is small on purpose: error.type is a metric attribute.
func ErrorType(err error) string {
	if err == nil {
		return ""
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	var (
		mdSyntax   *skillsmd.SyntaxError
		jsonSyntax *mcpjson.SyntaxError
		invalid    *mcpjson.ValidationError
		httpErr    *discovery.HTTPError
	)
	switch {
	case errors.As(err, &mdSyntax), errors.As(err, &jsonSyntax), errors.As(err, &invalid):
		return "invalid_document"
	case errors.As(err, &httpErr) && httpErr.StatusCode > 0:
		return strconv.Itoa(httpErr.StatusCode)
	}
	return otherError
}

// sentinels are checked in order: the first that err wraps names it.
var sentinels = []struct {
	err  error
	name string
}{
	{context.Canceled, "canceled"},
	{context.DeadlineExceeded, "timeout"},
	{discovery.ErrNotPublished, "not_published"},
	{discovery.ErrInvalidOrigin, "invalid_origin"},
	{discovery.ErrInsecureOrigin, "insecure_origin"},
	{discovery.ErrPrivateAddress, "private_address"},
	{discovery.ErrCrossOrigin, "cross_origin"},
	{discovery.ErrConsentDenied, "consent_denied"},
	{discovery.ErrTooLarge, "too_large"},
	{discovery.ErrTooManyRedirects, "too_many_redirects"},
	{discovery.ErrRetryAfterTooLong, "retry_after_too_long"},
	{discovery.ErrLocalOnly, "local_only"},
}
