package httpx

import (
	"context"
	"net"
	"net/http"
	"time"
)

// ShutdownWait is how long Serve lets requests in flight finish once ctx is done.
const ShutdownWait = 5 * time.Second

// Serve serves hs on ln until ctx is done, then shuts hs down, letting requests in
// flight finish within ShutdownWait. It returns hs.Serve's error when serving stops
// by itself, and nil when ctx ended it.
func Serve(ctx context.Context, ln net.Listener, hs *http.Server) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), ShutdownWait)
		defer cancel()
		_ = hs.Shutdown(shutdown)
		<-errc
		return nil
	}
}
