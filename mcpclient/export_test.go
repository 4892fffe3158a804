package mcpclient

// ClosesSession exposes the test a Session's guard uses for the DELETE that closes it.
var ClosesSession = closesSession
