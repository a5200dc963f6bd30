package billingtest

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// limiter counts requests per API key in fixed minute and day windows on
// the fake's clock, and PDF reads in their own minute window.
type limiter struct {
	mu      sync.Mutex
	windows map[string]*window
}

type window struct {
	start time.Time
	count int
}

// windowState is one window after counting a request.
type windowState struct {
	limit, remaining int
	reset            time.Duration
	exceeded         bool
}

// count counts a request in the window name of length size and reports
// its state.
func (l *limiter) count(name string, size time.Duration, limit int, now time.Time) windowState {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.windows == nil {
		l.windows = map[string]*window{}
	}
	start := now.Truncate(size)
	w := l.windows[name]
	if w == nil || !w.start.Equal(start) {
		w = &window{start: start}
		l.windows[name] = w
	}
	w.count++
	return windowState{
		limit:     limit,
		remaining: max(limit-w.count, 0),
		reset:     start.Add(size).Sub(now),
		exceeded:  w.count > limit,
	}
}

// throttle counts the request and sets the rate-limit headers. It returns
// the wait to send with a 429, or 0 when the request may go on.
//
// A window whose limit is 0 is off (see WithRateLimit): it is neither
// counted nor announced.
func (s *Server) throttle(h http.Header, key string, pdf bool) time.Duration {
	now := s.now()
	var wait time.Duration
	if s.cfg.perMinute > 0 {
		minute := s.limiter.count(key+"|minute", time.Minute, s.cfg.perMinute, now)
		setWindow(h, "Minute", minute)
		if minute.exceeded {
			wait = minute.reset
		}
	}
	if s.cfg.perDay > 0 {
		day := s.limiter.count(key+"|day", 24*time.Hour, s.cfg.perDay, now)
		setWindow(h, "Day", day)
		if day.exceeded {
			wait = max(wait, day.reset)
		}
	}
	if pdf && wait == 0 && s.cfg.pdfPerMinute > 0 {
		if st := s.limiter.count(key+"|pdf", time.Minute, s.cfg.pdfPerMinute, now); st.exceeded {
			wait = st.reset
		}
	}
	return wait
}

// setWindow sets the rate-limit headers of a window, in the map directly
// so that they go out as the reference spells them.
func setWindow(h http.Header, name string, st windowState) {
	h["X-Rate-Limit-Limit-"+name] = []string{strconv.Itoa(st.limit)}
	h["X-Rate-Limit-Remaining-"+name] = []string{strconv.Itoa(st.remaining)}
	h["X-Rate-Limit-Reset-"+name] = []string{strconv.Itoa(ceilSeconds(st.reset))}
}

func ceilSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// reset forgets every window's count.
func (l *limiter) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.windows = nil
}
