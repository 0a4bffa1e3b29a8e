// Package blockingconn is a TCP connection read and written with blocking system calls, as a C
// client's (libpq's, pgbench's) is: a read that must wait sleeps in the kernel on the calling
// thread, which the kernel wakes when the reply lands, instead of parking the goroutine on Go's
// network poller, which wakes it through epoll and another thread. For a client that waits on one
// round trip at a time this is one context switch a round trip instead of about three, and the
// client's share of the latency a C client has (docs/sql.md, "How dbbench drives PostgreSQL").
//
// A goroutine blocked in one of its reads holds its thread and its P (runtime.GOMAXPROCS): a
// process with more such connections in use at once than Ps lets the others wait for the runtime
// to take the P back. The caller sizes GOMAXPROCS to its connections.
package blockingconn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Dial connects as net.Dialer does (the context bounds the connect), then keeps a blocking
// duplicate of the socket and closes Go's. Only TCP and Unix sockets can be made blocking.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, errors.New("blockingconn: not a socket: " + network)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(f uintptr) { fd, derr = dupCloexec(int(f)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("dup", derr)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	return &Conn{fd: fd, network: network, local: c.LocalAddr(), remote: c.RemoteAddr()}, nil
}

// dupCloexec duplicates fd so that no child process inherits it.
func dupCloexec(fd int) (int, error) {
	for {
		nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return -1, errno
		}
		return int(nfd), nil
	}
}

// Conn is a blocking socket. One goroutine reads and one writes at a time; Close and the
// deadline setters may be called from any goroutine.
type Conn struct {
	fd            int
	network       string
	local, remote net.Addr
	mu            sync.Mutex // guards closed (the fd is not closed under a reader's feet)
	closed        bool
	expired       atomic.Bool    // a deadline past shut the socket down
	users         sync.WaitGroup // reads and writes under way
}

// timeoutError is what a read or write returns past a deadline, as net's own does.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// ErrDeadline is returned by reads and writes once a deadline in the past was set: the socket is
// shut down then (the only way to wake a thread blocked in the kernel), so the connection is done.
var ErrDeadline error = timeoutError{}

func (c *Conn) use() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.users.Add(1)
	return true
}

// Read reads what the socket holds, waiting in the kernel for at least one byte.
func (c *Conn) Read(b []byte) (int, error) {
	if !c.use() {
		return 0, net.ErrClosed
	}
	defer c.users.Done()
	for {
		n, err := syscall.Read(c.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN || (err != nil || n == 0) && c.expired.Load():
			return 0, ErrDeadline
		case err != nil:
			return 0, &net.OpError{Op: "read", Net: c.network, Addr: c.remote, Err: os.NewSyscallError("read", err)}
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of b.
func (c *Conn) Write(b []byte) (int, error) {
	if !c.use() {
		return 0, net.ErrClosed
	}
	defer c.users.Done()
	w := 0
	for w < len(b) {
		n, err := syscall.Write(c.fd, b[w:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN || err != nil && c.expired.Load():
			return w, ErrDeadline
		case err != nil:
			return w, &net.OpError{Op: "write", Net: c.network, Addr: c.remote, Err: os.NewSyscallError("write", err)}
		}
		w += n
	}
	return w, nil
}

// Close shuts the socket down (waking a blocked read or write), waits for them, and closes it.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return net.ErrClosed
	}
	c.closed = true
	c.mu.Unlock()
	syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	c.users.Wait()
	return os.NewSyscallError("close", syscall.Close(c.fd))
}

func (c *Conn) LocalAddr() net.Addr  { return c.local }
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline bounds later reads and writes: a time ahead of now as the socket's own timeouts
// (SO_RCVTIMEO, SO_SNDTIMEO: each call waits at most that long), the zero time clears them, and a
// time already past shuts the socket down, which wakes a read or write blocked on it.
func (c *Conn) SetDeadline(t time.Time) error {
	if !c.use() {
		return net.ErrClosed
	}
	defer c.users.Done()
	var d time.Duration
	if !t.IsZero() {
		if d = time.Until(t); d <= 0 {
			c.expired.Store(true)
			return os.NewSyscallError("shutdown", syscall.Shutdown(c.fd, syscall.SHUT_RDWR))
		}
	}
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	if d > 0 && tv.Sec == 0 && tv.Usec == 0 {
		tv.Usec = 1 // a timeout of zero is none
	}
	return os.NewSyscallError("setsockopt", errors.Join(
		syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv),
		syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)))
}

func (c *Conn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
