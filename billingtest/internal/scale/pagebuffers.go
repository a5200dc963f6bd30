package scale

import "sync"

// PageBuffers recycles the buffers that list pages are assembled in. A
// page of 1,000 list invoices is about 2 MB: allocating it afresh for
// every request, as a sweep makes a hundred of them, cost the fake more
// CPU in zeroing, copying and collecting than in the rest of its work.
type PageBuffers struct {
	pool sync.Pool // *[]byte
}

// Get returns an empty buffer with room for at least size bytes.
func (p *PageBuffers) Get(size int) *[]byte {
	if b, ok := p.pool.Get().(*[]byte); ok && cap(*b) >= size {
		*b = (*b)[:0]
		return b
	}
	b := make([]byte, 0, size)
	return &b
}

// Put makes b available again; the caller no longer uses it.
func (p *PageBuffers) Put(b *[]byte) {
	p.pool.Put(b)
}
