package exec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/internal/childproc"
)

// exitGrace is how long a client has to exit after its stdin closes.
const exitGrace = 5 * time.Second

// proc is a client process in its own process group, with its stdin and stdout as pipes and every
// stderr line forwarded to logf. Its stdout is read by one goroutine into lines, so that a reply can
// be awaited with a deadline.
type proc struct {
	cmd   *osexec.Cmd
	pgid  int
	stdin *os.File
	lines chan line // stdout, one line at a time; closed at end of file

	done   chan struct{} // closed by kill: stop sending lines
	exited chan struct{} // closed when the process has exited (not yet reaped)
	reaped chan struct{} // closed when it has been reaped; then state is set
	state  *os.ProcessState
	once   sync.Once // reap once
}

type line struct {
	b   []byte
	err error // a read error or an overlong line; the last value sent
}

// startProc starts argv in dir with extra environment variables (added to dbbench's own).
func startProc(argv []string, dir string, env []string, logf func(string, ...any)) (*proc, error) {
	path, err := osexec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := &osexec.Cmd{
		Path: path, Args: argv, Dir: dir, Env: append(os.Environ(), env...),
		Stdin: inR, Stdout: outW, Stderr: errW,
		// Its own process group, so that everything it starts can be killed at once; and killed if
		// dbbench dies without cleaning up.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	p := &proc{
		cmd: cmd, stdin: inW, lines: make(chan line, 1),
		done: make(chan struct{}), exited: make(chan struct{}), reaped: make(chan struct{}),
	}
	// Pdeathsig follows the forking thread: fork from one that lives until the child has exited.
	err = childproc.StartPinned(cmd, p.watch)
	inR.Close() // the child holds its own copies
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p.pgid = cmd.Process.Pid
	go p.readLines(outR)
	go forward(errR, logf)
	return p, nil
}

// readLines sends stdout lines (without the newline) until end of file, an error or a line longer
// than protocol.MaxLine.
func (p *proc) readLines(r *os.File) {
	defer close(p.lines)
	defer r.Close()
	send := func(l line) bool {
		select {
		case p.lines <- l:
			return true
		case <-p.done:
			return false
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var buf []byte
		for {
			chunk, err := br.ReadSlice('\n')
			if len(buf)+len(chunk) > protocol.MaxLine+1 {
				send(line{err: fmt.Errorf("a reply line longer than %d MiB", protocol.MaxLine>>20)})
				return
			}
			buf = append(buf, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if len(buf) > 0 {
					send(line{err: fmt.Errorf("an unterminated line at exit: %q", abbrev(buf))})
				}
				return // end of file: the channel closes
			}
			break
		}
		if !send(line{b: bytes.TrimRight(buf, "\r\n")}) {
			return
		}
	}
}

// forward logs each stderr line of the client (never into a report).
func forward(r io.ReadCloser, logf func(string, ...any)) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		s, err := br.ReadString('\n')
		if s = strings.TrimRight(s, "\r\n"); s != "" && logf != nil {
			if len(s) > 4096 {
				s = s[:4096] + "..."
			}
			logf("%s", s)
		}
		if err != nil {
			return
		}
	}
}

// watch notices the exit of the process without reaping it, so that its process group id cannot be
// reused before the group has been killed.
func (p *proc) watch() {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, p.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil || !errors.Is(err, unix.EINTR) {
			break
		}
	}
	close(p.exited)
}

// kill ends the whole process group at once and reaps the client.
func (p *proc) kill() {
	p.once.Do(func() {
		close(p.done)
		syscall.Kill(-p.pgid, syscall.SIGKILL)
		p.stdin.Close()
		<-p.exited
		syscall.Kill(-p.pgid, syscall.SIGKILL) // anything it started since
		// SIGKILL is delivered asynchronously: wait (briefly) until the group is really gone.
		for end := time.Now().Add(2 * time.Second); GroupAlive(p.pgid) && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
		}
		p.cmd.Wait()
		p.state = p.cmd.ProcessState
		close(p.reaped)
	})
}

// shutdown closes stdin and gives the client exitGrace to exit by itself; then (or at once if it
// does not) the process group is killed, so nothing it started outlives it. It reports whether the
// client exited by itself.
func (p *proc) shutdown() (exitedAlone bool) {
	p.stdin.Close()
	select {
	case <-p.exited:
		exitedAlone = true
	case <-time.After(exitGrace):
	}
	p.kill()
	return exitedAlone
}

// exitStatus describes how the process ended, once it has ("" while it runs).
func (p *proc) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	p.kill() // reap, and end the group
	if p.state == nil {
		return "exited"
	}
	return p.state.String()
}

// GroupAlive reports whether any live (not zombie) process is left in the process group pgid.
func GroupAlive(pgid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so parse after the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == fmt.Sprint(pgid) {
			return true
		}
	}
	return false
}

func abbrev(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}
