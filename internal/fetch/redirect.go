package fetch

import "net/http"

// checkRedirect is the CheckRedirect of the inner http.Client (the one that follows
// redirects, below the retries): every hop of the fetch meets the root's origin
// policy (Config.CheckHop). A hop that stays on the discovery origin, or reaches an
// origin the fetch was granted, goes on; a hop to any other origin stops the request
// with consentNeeded, and send asks the user outside the fetch's time limits.
func (st *state) checkRedirect(req *http.Request, via []*http.Request) error {
	st.redirected = true
	target, err := st.f.cfg.CheckHop(req, via, len(via)+st.earlierHops())
	if err != nil || target == st.req.Origin || st.isGranted(target) {
		return err
	}
	next := *req.URL
	return &consentNeeded{target: target, next: &next, hops: len(via)}
}
