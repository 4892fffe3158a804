//go:build race

package discovery

// raceEnabled: the race detector slows every call tenfold; long tests scale down.
const raceEnabled = true
