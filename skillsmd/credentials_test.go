package skillsmd_test

import "testing"

// TestCredentialSentencesRanked: when no rule states auth, the sentences naming the
// credential do; one that says how to authenticate (bearer, a header, a token, OAuth,
// "Authorization:") outranks one that only mentions a key the API hands out, wherever
// each stands. Such a sentence alone still states auth.
func TestCredentialSentencesRanked(t *testing.T) {
	t.Parallel()
	const handedOut = "The response includes a one-time-shown API key."
	checkDocs(t, []docCase{
		// A real guide's shape: the step with bearer auth first, the key handed out later.
		{doc: "# T\n\n## Steps\n\n1. **Read.** Fetch the spec.\n2. **Submit.** `POST https://api.example.org/v1/submissions` with bearer\n   auth. Include the log.\n\n" +
			"## Optional\n\n`POST https://api.example.org/v1/register` with `{ handle }`.\n" + handedOut + "\n",
			base: "https://api.example.org/v1", auth: "POST https://api.example.org/v1/submissions with bearer auth."},
		// The key handed out first, how to send it after.
		{doc: "# T\n\n" + handedOut + "\n\nSend the key as a bearer token.\n", auth: "Send the key as a bearer token."},
		{doc: "# T\n\nRegistration returns an API key you must include in every request.\n\nRequests use token authentication.\n",
			auth: "Requests use token authentication."},
		{doc: "# T\n\nThe signup response includes your API key.\n\nAuthenticate with OAuth 2 for write calls.\n",
			auth: "Authenticate with OAuth 2 for write calls."},
		{doc: "# T\n\nThe login response includes a session token.\n\nSend the session token with every request.\n",
			auth: "Send the session token with every request."},
		{doc: "# T\n\nThe claim call returns a long-lived API key.\n\nEvery call requires an API key.\n", auth: "Every call requires an API key."},
		// Several handed-out keys, then how to authenticate: only that.
		{doc: "# T\n\nThe first response includes an API key.\n\nThe rotate call returns a new API key.\n\nThe admin call returns an API key.\n\n" +
			"The audit call returns an API key.\n\nThe last response includes an API key.\n\nAuthenticate with a bearer token.\n",
			auth: "Authenticate with a bearer token."},
		// Only a key handed out: it is all the guide says, and it is kept.
		{doc: "# T\n\n" + handedOut + "\n", auth: "The response includes a one-time-shown API key."},
		// A statement of how to authenticate is never outranked by a later mention.
		{doc: "# T\n\nThe API authenticates with a bearer token.\n\n" + handedOut + "\n", auth: "The API authenticates with a bearer token."},
	})
}
