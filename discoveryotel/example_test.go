package discoveryotel_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/discoveryotel"
)

func Example() {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Tracker\n\nRead repair ticket status.\n")
	}))
	defer ts.Close()

	// In a program these are the SDK providers the application configures (or nil, for
	// the global ones); here they record in memory.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))

	inst, err := discoveryotel.New(&discoveryotel.Options{
		TracerProvider: tp,
		MeterProvider:  mp,
		// PropagateTo is nil: no traceparent is sent to the site.
	})
	if err != nil {
		log.Fatal(err)
	}
	opts := &discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true}
	inst.Apply(opts)
	c, err := discovery.NewClient(opts)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Discover(context.Background(), ts.URL); err != nil {
		log.Fatal(err)
	}

	for _, s := range spans.Ended() { // children end first
		fmt.Println("span", s.Name(), s.SpanKind())
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "discovery.fetches" {
				for _, dp := range sum.DataPoints {
					fmt.Println(m.Name, dp.Attributes.Encoded(attribute.DefaultEncoder()), dp.Value)
				}
			}
		}
	}
	// Output:
	// span GET client
	// span discovery.fetch internal
	// span discovery.discover internal
	// discovery.fetches doc=skills.md,source=network 1
}
