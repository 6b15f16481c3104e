package crawl_test

import (
	"testing"
	"time"
)

// The audited first pass ends with its busiest site: on the farm's copy of
// the audit's web (auditShapes: its deepest site's floor under the 30 s of
// the retry schedule's first wait, one site in six answering 503 to
// robots.txt), on the event clock so that the crawler's CPU and the
// machine's load cost no simulated time, wall ÷ the busiest site's floor
// stays within 5%. It was 1.13 while a robots.txt that answered 503 was
// asked again only after the schedule's first wait, holding the round
// open past its busiest site. The retry itself still happens within the
// round, and no politeness rule is broken.
func TestAuditedFirstPassEndsWithItsBusiestSite(t *testing.T) {
	if testing.Short() {
		t.Skip("a first pass over 200 sites")
	}
	run := auditPass(t, 200, auditShapes(), true)
	tl := run.timeline()
	t.Log(tl)
	for _, v := range run.violations[:min(5, len(run.violations))] {
		t.Error(v)
	}
	if tl.floor >= 30*time.Second {
		t.Fatalf("the busiest site's floor is %v: the population no longer shows what the schedule's first wait would cost", tl.floor)
	}
	if tl.retriedRobots503 == 0 {
		t.Errorf("no robots.txt that answered 503 was asked again within the round")
	}
	if r := run.ratio(); r > 1.05 {
		t.Errorf("wall %v is %.3f× the busiest site's floor %v, want at most 1.05×", run.wall().Round(time.Millisecond), r, tl.floor.Round(time.Millisecond))
	}
}
