package schedule

import (
	"math"
	"math/rand/v2"
	"slices"
)

// PopulationConfig describes the simulated blogs.
//
// Publishing rates across blogs are heavy-tailed: most blogs post rarely
// or have stopped, a few post many times a day. The blog-measurement
// literature finds activity spread over orders of magnitude with long tails
// (e.g. Kumar et al., "On the bursty evolution of blogspace", WWW 2003;
// Leskovec et al., "Cascading behavior in large blog graphs", SDM 2007),
// and the seed's own population (45,695 feeds, a fixed rotation that still
// finds "enough") is consistent with that. We therefore use a mixture:
//
//   - DormantShare of feeds publish nothing during the simulation; their
//     page still shows PageSize old posts, the newest 0.5 to 5 years old
//     (log-uniform), spaced at a rate drawn as for an active feed.
//   - The rest publish as Poisson processes whose rate (posts a day) is
//     log-normal with median 1/MedianGapDays and log-sd Sigma, capped at
//     MaxRate. With the defaults (median one post per 14 days, σ = 1.6) the
//     90th percentile posts about every two days, the 99th about 3 a day,
//     the 99.9th about 10 a day, and the busiest tenth of active feeds
//     write about 60% of all posts — the shape that makes a uniform
//     rotation wasteful.
//   - DailyCycle modulates every rate by 1 + DailyCycle·cos(2π(t − 14 h)/24 h):
//     posting peaks in the afternoon (UTC), as a population concentrated in
//     a few time zones does. It tests that intervals fitted to a mean rate
//     do not depend on a flat day.
type PopulationConfig struct {
	Feeds         int
	Seed          uint64
	DormantShare  float64
	MedianGapDays float64
	Sigma         float64
	MaxRate       float64 // posts a day
	DailyCycle    float64 // 0 (flat) to 1
	PageSize      int     // entries on page one of a feed (WordPress: 10)
	Hours         float64 // how long to generate posts for
}

// DefaultPopulation is the seed's scale: 45,000 feeds, 60 days.
func DefaultPopulation() PopulationConfig {
	return PopulationConfig{
		Feeds: 45000, Seed: 1, DormantShare: 0.3, MedianGapDays: 14, Sigma: 1.6,
		MaxRate: 48, DailyCycle: 0.5, PageSize: 10, Hours: 90 * 24,
	}
}

// Population is a generated set of feeds and their publication times, the
// same for every strategy simulated over it.
type Population struct {
	Config PopulationConfig
	Rates  []float64 // true mean rate of each feed, posts a day
	// Posts holds each feed's publication times in hours from the start,
	// ascending; feed i's are Posts[Offsets[i]:Offsets[i+1]]. Times ≤ 0
	// are the page already there at the start.
	Posts   []float64
	Offsets []int
}

// NewPopulation generates a population, deterministically from cfg.Seed.
func NewPopulation(cfg PopulationConfig) *Population {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	p := &Population{Config: cfg, Rates: make([]float64, cfg.Feeds), Offsets: make([]int, 0, cfg.Feeds+1)}
	drawRate := func() float64 {
		r := math.Exp(math.Log(1/cfg.MedianGapDays) + cfg.Sigma*rng.NormFloat64())
		return min(r, cfg.MaxRate)
	}
	for i := range cfg.Feeds {
		p.Offsets = append(p.Offsets, len(p.Posts))
		dormant := rng.Float64() < cfg.DormantShare
		rate := drawRate()
		// The page already there: PageSize posts going back from the
		// newest, at the feed's (former) rate.
		newest := 0.0
		if dormant {
			newest = -24 * 365 * math.Exp(math.Log(0.5)+rng.Float64()*math.Log(10))
		}
		past := make([]float64, 0, cfg.PageSize)
		t := newest
		for range cfg.PageSize {
			if !dormant || len(past) > 0 {
				t -= rng.ExpFloat64() / rate * 24
			}
			past = append(past, t)
		}
		slices.Reverse(past)
		p.Posts = append(p.Posts, past...)
		if dormant {
			continue
		}
		p.Rates[i] = rate
		// Thinning: candidates at the peak rate, kept with probability
		// λ(t)/λmax.
		peak := rate * (1 + cfg.DailyCycle) / 24 // posts an hour
		for t := rng.ExpFloat64() / peak; t <= cfg.Hours; t += rng.ExpFloat64() / peak {
			keep := (1 + cfg.DailyCycle*math.Cos(2*math.Pi*(t-14)/24)) / (1 + cfg.DailyCycle)
			if rng.Float64() < keep {
				p.Posts = append(p.Posts, t)
			}
		}
	}
	p.Offsets = append(p.Offsets, len(p.Posts))
	return p
}
