// Package outside holds no code: its test builds a throwaway module outside
// this one that imports the public packages (robots, sitemap, feed) through
// a replace directive and runs them, so that the public API is proved usable
// from another module, and that the module's internal packages are not.
package outside
