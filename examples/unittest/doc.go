// Package unittest holds the tests that README.md shows: how to test code
// that uses the SDK with the bundled fake (billingtest), with httpmock,
// and with the fake served in process. Each README block marked with a
// "from" comment is a verbatim part of a file here, and
// TestREADMEBlocksAreTheTests keeps the two in step, so that what the
// README shows is what CI runs.
package unittest
