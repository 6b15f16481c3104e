// Package push is the protocol logic of the two ways a site can tell the
// crawler about new posts instead of waiting to be polled: WebSub (W3C
// Recommendation, https://www.w3.org/TR/websub/) and IndexNow
// (https://www.indexnow.org/documentation). It is pure: no I/O, no clock
// of its own; the crawler (package crawl) and the public site (package web)
// do the requests and keep the state.
//
// WebSub: Discover finds a feed's hub and topic, the subscription states
// say which verification of intent to confirm (AcceptsIntent), RenewAt
// when a lease is renewed, and CheckSignature judges every delivery's
// X-Hub-Signature. IndexNow: ValidKey, ParseSubmission, KeyFileURL and
// SplitURLs are the protocol's rules on a submission.
package push
