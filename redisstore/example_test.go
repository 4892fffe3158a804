package redisstore_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/redisstore"
)

// Two processes of a fleet (two Clients here) share one Redis: the second one's
// Discover is answered from Redis, and the origin sees one request.
func Example() {
	mr := miniredis.NewMiniRedis() // an in-process Redis, for the example
	if err := mr.Start(); err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	var requests atomic.Int32
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("Cache-Control", "max-age=300")
		fmt.Fprint(w, "# Tracker\n\nRead repair ticket status.\n")
	}))
	defer ts.Close()

	rdb := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{mr.Addr()}, ContextTimeoutEnabled: true})
	defer rdb.Close()
	newClient := func() *discovery.Client { // one per process; each Store has its own local tier
		// SharePrivate: the example's origin is a loopback test server, which every
		// "process" here sees; a real fleet shares public origins without it.
		store, err := redisstore.New(rdb, &redisstore.Options{SharePrivate: true, Timeout: 2 * time.Second})
		if err != nil {
			log.Fatal(err)
		}
		c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true,
			Cache: store.Cache(), LastGood: store.LastGood(), FleetLock: store.FleetLock()})
		if err != nil {
			log.Fatal(err)
		}
		return c
	}
	for _, c := range []*discovery.Client{newClient(), newClient()} {
		d, err := c.Discover(context.Background(), ts.URL)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(d.Guide.Title, d.Fetches[0].Source)
	}
	fmt.Println("origin requests:", requests.Load())
	// Output:
	// Tracker network
	// Tracker cache
	// origin requests: 1
}
