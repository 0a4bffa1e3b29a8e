package blockingconn

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// echo listens on loopback and echoes every connection; its address.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func dial(t *testing.T, addr string) *Conn {
	t.Helper()
	c, err := Dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*Conn)
}

// TestUnix: a Unix socket (a PostgreSQL DSN's host=/var/run/postgresql) works as TCP does.
func TestUnix(t *testing.T) {
	ln, err := net.Listen("unix", t.TempDir()+"/s")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			io.Copy(c, c)
		}
	}()
	c, err := Dial(context.Background(), "unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make([]byte, 2)
	if _, err := c.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "hi" {
		t.Errorf("read %q, %v", got, err)
	}
}

// TestBlocking: the socket is blocking, its descriptor closed on exec, and bytes go both ways.
func TestBlocking(t *testing.T) {
	c := dial(t, echo(t))
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(c.fd), syscall.F_GETFL, 0)
	if errno != 0 || fl&syscall.O_NONBLOCK != 0 {
		t.Errorf("flags %#x (%v): want a blocking socket", fl, errno)
	}
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(c.fd), syscall.F_GETFD, 0)
	if errno != 0 || fd&syscall.FD_CLOEXEC == 0 {
		t.Errorf("descriptor flags %#x (%v): want close-on-exec", fd, errno)
	}
	msg := []byte("ping, then pong")
	if n, err := c.Write(msg); n != len(msg) || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != string(msg) {
		t.Fatalf("read %q, %v", got, err)
	}
	if c.RemoteAddr().String() == "" || c.LocalAddr().String() == "" {
		t.Errorf("addresses %v %v", c.LocalAddr(), c.RemoteAddr())
	}
}

// TestWakes: what ends a read blocked in the kernel on a silent peer, and what the read returns.
func TestWakes(t *testing.T) {
	for _, c := range []struct {
		name string
		do   func(*Conn)
		want func(error) bool
	}{
		{"a deadline in the past", func(c *Conn) { c.SetDeadline(time.Unix(1, 0)) }, isTimeout},
		{"a deadline ahead", nil, isTimeout}, // set before the read
		{"Close", func(c *Conn) { c.Close() }, func(err error) bool { return err != nil && !isTimeout(err) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := dial(t, echo(t))
			if c.do == nil {
				if err := conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() {
				_, err := conn.Read(make([]byte, 8))
				done <- err
			}()
			if c.do != nil {
				time.Sleep(50 * time.Millisecond) // the read is blocked by now, most likely
				c.do(conn)
			}
			select {
			case err := <-done:
				if !c.want(err) {
					t.Errorf("the read returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the read was not woken")
			}
		})
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, ErrDeadline)
}

// TestClearedDeadline: the zero time clears a deadline ahead, and a closed Conn refuses calls.
func TestClearedDeadline(t *testing.T) {
	c := dial(t, echo(t))
	if err := c.SetDeadline(time.Now().Add(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := c.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(100 * time.Millisecond); c.Write([]byte("x")) }()
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatalf("a read after the deadline was cleared: %v", err)
	}
	c.Close()
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after close: %v", err)
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second close: %v", err)
	}
}

// TestDialRefused: a refused connect is net's own error, and no descriptor is left.
func TestDialRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := Dial(context.Background(), "tcp", addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("got %v, want connection refused", err)
	}
}
