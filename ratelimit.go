package billing

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimit holds the X-Rate-Limit-{Limit,Remaining,Reset}-{Minute,Day}
// headers that any answer of the API may carry.
type RateLimit struct {
	// Minute is the per-minute window.
	Minute RateLimitWindow
	// Day is the per-day window.
	Day RateLimitWindow
}

// RateLimitWindow is one rate-limit window.
type RateLimitWindow struct {
	// Present is true when the answer carried at least one header of the
	// window; the other fields are meaningful only then.
	Present bool
	// Limit is the number of requests allowed in the window, -1 if absent.
	Limit int
	// Remaining is the number of requests left in the window, -1 if absent.
	Remaining int
	// Reset is how long after the answer the window resets, 0 if absent.
	//
	// The API reference does not show the header's format, so all of these
	// are read: a number of seconds; a Unix time in seconds (any number
	// above 1e9); an HTTP date; a timestamp in the API's own format (UTC).
	Reset time.Duration
}

func parseRateLimit(h http.Header, now time.Time) RateLimit {
	return RateLimit{
		Minute: parseRateLimitWindow(h, "Minute", now),
		Day:    parseRateLimitWindow(h, "Day", now),
	}
}

func parseRateLimitWindow(h http.Header, window string, now time.Time) RateLimitWindow {
	w := RateLimitWindow{Limit: -1, Remaining: -1}
	if v := h.Get("X-Rate-Limit-Limit-" + window); v != "" {
		w.Present = true
		w.Limit = atoiOr(v, -1)
	}
	if v := h.Get("X-Rate-Limit-Remaining-" + window); v != "" {
		w.Present = true
		w.Remaining = atoiOr(v, -1)
	}
	if v := h.Get("X-Rate-Limit-Reset-" + window); v != "" {
		w.Present = true
		w.Reset = parseWait(v, now)
	}
	return w
}

// unixSecondsThreshold separates "seconds from now" from "Unix time in
// seconds": no rate-limit window lasts 30 years.
const unixSecondsThreshold = 1_000_000_000

// parseWait reads a wait given as seconds, a Unix time, an HTTP date or an
// API timestamp, and returns how long from now that is: never negative,
// and saturated at the longest time.Duration, so that a wait too long to
// represent stays too long to honour instead of wrapping round to none.
func parseWait(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case math.IsNaN(secs) || secs <= 0:
			return 0
		case secs > unixSecondsThreshold:
			return untilUnix(secs, now)
		}
		return secondsToDuration(secs)
	}
	if t, err := http.ParseTime(v); err == nil {
		return nonNegative(t.Sub(now))
	}
	if t, err := parseTimestamp([]byte(v)); err == nil {
		return nonNegative(t.Sub(now))
	}
	return 0
}

// secondsToDuration converts, saturating at the longest duration.
func secondsToDuration(secs float64) time.Duration {
	if secs >= float64(math.MaxInt64)/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(secs * float64(time.Second))
}

// untilUnix is the wait until Unix time secs, saturating as
// secondsToDuration does.
func untilUnix(secs float64, now time.Time) time.Duration {
	return nonNegative(secondsToDuration(secs - float64(now.UnixNano())/float64(time.Second)))
}

func nonNegative(d time.Duration) time.Duration {
	return max(d, 0)
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n
}

// requestedWait is how long the server asked the client to wait before the
// next request: Retry-After first; on a 429 without it, the reset of the
// exhausted rate-limit window (the minute window when none says it is
// exhausted). 0 means the server asked for nothing.
func requestedWait(resp *http.Response, now time.Time) time.Duration {
	if resp == nil {
		return 0
	}
	if v := resp.Header.Get("Retry-After"); v != "" {
		if d := parseWait(v, now); d > 0 {
			return d
		}
	}
	if resp.StatusCode != http.StatusTooManyRequests {
		return 0
	}
	rl := parseRateLimit(resp.Header, now)
	switch {
	case rl.Minute.Remaining == 0 && rl.Minute.Reset > 0:
		return rl.Minute.Reset
	case rl.Day.Remaining == 0 && rl.Day.Reset > 0:
		return rl.Day.Reset
	case rl.Minute.Reset > 0:
		return rl.Minute.Reset
	}
	return rl.Day.Reset
}
