// Command ssebench measures SSE and WebSocket fan-out end to end: N clients subscribe to one
// topic (or spread evenly over -topics topics, -per-client of them on each connection), a publisher posts events of a given size at a given rate (round
// robin over the topics) with its send time stamped in the payload ("sentAt", epoch
// microseconds), and each client records now - sentAt on receipt.
//
// Knobs (flags): -url, -topic (with -topics > 1, the topics are <topic>-0 .. <topic>-(n-1)),
// -topics, -clients, -rate (events per second in all), -size, -duration, -warmup, -pid (gateway
// process to sample CPU and RSS from), -channel (sse, or ws for WebSocket clients on
// /api/v1/ws), -per-client (topics per connection: a stream of several topics on SSE,
// several subscribe messages on WebSocket), -create (create the topics first, 32 at a time, and
// report how long it took), -idle (measure the gateway's CPU with every client connected and
// nothing published, for this long), -heap (the gateway's heap after a full GC, through jcmd,
// with the clients still connected), -filters (each SSE client streams with one of this many
// distinct CEL filters, client i with filter i mod n: with -filter-kind pass every filter lets
// every event through, so the run delivers what the unfiltered one does and only the cost of
// filtering differs; with split, filter k passes the events whose "bucket" (their sequence
// number mod n) is k). It prints one JSON line of results, with the gateway's
// CPU-seconds per 1,000 delivered events, to compare runs on a noisy machine by ratio.
//
// With -hub mercure the same load goes to a Mercure hub instead (the Go hub the many-topics
// figures compare streamgate with): clients subscribe to /.well-known/mercure?topic=<topic>,
// the publisher posts each event there as a form with a publisher JWT signed with -jwt-key
// (HS256), and -pid names the hub's process. Topics are not created (a Mercure topic exists
// once named); -channel, -per-client and -filters do not apply.
//
// -slow FILE writes each measured delivery slower than -slow-over (10ms) as a line
// "<sentAt µs> <latency µs>", to line the slow ones up with the gateway's GC log or a profile.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"
)

type result struct {
	Channel       string  `json:"channel"`
	Clients       int     `json:"clients"`
	Topics        int     `json:"topics"`
	PerClient     int     `json:"topicsPerClient"`
	Rate          int     `json:"ratePerSecond"`
	Size          int     `json:"payloadBytes"`
	Duration      float64 `json:"seconds"`
	Published     int64   `json:"published"`
	Delivered     int64   `json:"delivered"`
	Expected      int64   `json:"expected"`
	DeliveredPerS float64 `json:"deliveredPerSecond"`
	P50           float64 `json:"p50ms"`
	P99           float64 `json:"p99ms"`
	P999          float64 `json:"p999ms"`
	Max           float64 `json:"maxms"`
	Disconnects   int64   `json:"disconnects"`
	CPUPercent    float64 `json:"gatewayCpuPercent"`
	CPUPer1000    float64 `json:"gatewayCpuSecondsPer1000Events"`
	RSSMiB        float64 `json:"gatewayRssMiB"`
	MaxRSSMiB     float64 `json:"gatewayMaxRssMiB"`
	ClientCPU     float64 `json:"loadGeneratorCpuPercent"`
	CreateSecs    float64 `json:"createSeconds,omitempty"`
	IdleCPU       float64 `json:"idleGatewayCpuPercent,omitempty"`
	IdleRSSMiB    float64 `json:"idleGatewayRssMiB,omitempty"`
	HeapMiB       float64 `json:"gatewayHeapAfterGcMiB,omitempty"`
	// The gateway's CPU by thread group (the thread's name without its number), in cores,
	// over the measured window and over the idle window: which threads a change moved.
	ThreadCores     map[string]float64 `json:"gatewayThreadCores,omitempty"`
	IdleThreadCores map[string]float64 `json:"idleGatewayThreadCores,omitempty"`
	Filters         int                `json:"filters,omitempty"`
	FilterKind      string             `json:"filterKind,omitempty"`
	// CPU of each process named by -pids over the measured window, in percent of a core.
	CPUByPid map[string]float64 `json:"cpuPercentByPid,omitempty"`
	// The same over the idle window (-idle).
	IdleCPUByPid map[string]float64 `json:"idleCpuPercentByPid,omitempty"`
	// The same without the JIT compiler's threads: a process that gets less work compiles
	// its hot code later, within a window its peers have long passed.
	CPUByPidNoJit     map[string]float64 `json:"cpuPercentByPidWithoutJit,omitempty"`
	IdleCPUByPidNoJit map[string]float64 `json:"idleCpuPercentByPidWithoutJit,omitempty"`
	// -encoding: the content coding asked for; the bytes the clients read off their sockets
	// per delivered event (after chunked framing, before decompression), measured with or
	// without it; and the gateway's compressions per published event
	// (streamgate_sse_compressions_total), which a compression shared by every connection
	// keeps near one whatever the number of clients.
	Encoding             string  `json:"encoding,omitempty"`
	WireBytesPerDelivery float64 `json:"wireBytesPerDelivery"`
	CompressionsPerEvent float64 `json:"compressionsPerEvent,omitempty"`
}

// wireBytes counts what every stream read off the network (the body as sent, compressed or not).
var wireBytes atomic.Int64

type countingReader struct{ body io.Reader }

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.body.Read(p)
	wireBytes.Add(int64(n))
	return n, err
}

// encoding is -encoding: the content coding the SSE clients ask for, or "".
var encoding string

// A fixed-bucket latency histogram: 10 µs buckets up to 10 s, exact enough for p99.
type histogram struct {
	mu     sync.Mutex
	counts []int64
	max    int64
	total  int64
}

func newHistogram() *histogram { return &histogram{counts: make([]int64, 1_000_001)} }

func (h *histogram) record(micros int64) {
	if micros < 0 {
		micros = 0
	}
	b := micros / 10
	if b >= int64(len(h.counts)) {
		b = int64(len(h.counts) - 1)
	}
	h.mu.Lock()
	h.counts[b]++
	h.total++
	if micros > h.max {
		h.max = micros
	}
	h.mu.Unlock()
}

func (h *histogram) percentile(p float64) float64 {
	target := int64(float64(h.total)*p + 0.5)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= target && c > 0 {
			return float64(i*10+10) / 1000
		}
	}
	return float64(h.max) / 1000
}

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "gateway base URL for publishing")
	streamURL := flag.String("stream-url", "", "base URL for streams (e.g. through NGINX); default -url. "+
		"Several, comma-separated: client i streams from URL (i / topics) mod their number, so that "+
		"with clients = k * topics each URL gets one client per topic")
	topic := flag.String("topic", "bench", "topic id (an http-post event topic)")
	topics := flag.Int("topics", 1, "topics: <topic>-0 .. <topic>-(n-1) when more than 1")
	clients := flag.Int("clients", 1000, "SSE clients")
	rate := flag.Int("rate", 100, "events per second; 0 publishes nothing (idle connections)")
	size := flag.Int("size", 1024, "payload size in bytes")
	duration := flag.Duration("duration", 60*time.Second, "measured duration")
	warmup := flag.Duration("warmup", 10*time.Second, "publishing before measuring")
	pid := flag.Int("pid", 0, "gateway pid to sample CPU and RSS from")
	pidList := flag.String("pids", "", "more pids, comma-separated, whose CPU over the measured window is reported each")
	create := flag.Bool("create", false, "create the topics first, 32 at a time")
	idle := flag.Duration("idle", 0, "measure the gateway's CPU this long with the clients connected, before publishing")
	settle := flag.Duration("settle", 0, "wait this long after the clients connected before the idle measure (JIT, connection set-up)")
	heap := flag.Bool("heap", false, "report the gateway's heap after a full GC (jcmd) at the end")
	channel := flag.String("channel", "sse", "sse or ws")
	perClient := flag.Int("per-client", 1, "topics each connection subscribes to")
	filters := flag.Int("filters", 0, "distinct CEL filters over the SSE clients (0: none)")
	filterKind := flag.String("filter-kind", "pass", "pass (every filter passes every event) or split (filter k passes bucket k)")
	hub := flag.String("hub", "streamgate", "streamgate, or mercure for a Mercure hub at -url")
	jwtKey := flag.String("jwt-key", "", "with -hub mercure: the hub's publisher JWT key (HS256)")
	slowFile := flag.String("slow", "", "write the measured deliveries slower than -slow-over to this file")
	slowOver := flag.Duration("slow-over", 10*time.Millisecond, "with -slow: the latency from which a delivery is written")
	payloadKind := flag.String("payload", "pad", "pad (the size filled with one repeated letter), items (a JSON "+
		"document of {\"id\":n,\"value\":<random 9 digits>} items, like the reference table's documents, new values "+
		"every event) or document (snapshot topics of such a document, 20% of its values renewed by each publication, "+
		"as the reference table's mock source does: clients receive the patches)")
	flag.StringVar(&encoding, "encoding", "", "SSE clients ask for a compressed stream: gzip or deflate (Accept-Encoding); "+
		"WebSocket clients (-channel ws), for any value, offer permessage-deflate")
	flag.Parse()
	if *slowFile != "" {
		file, err := os.Create(*slowFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "slow:", err)
			os.Exit(2)
		}
		defer file.Close()
		slow = &slowLog{file: bufio.NewWriter(file), over: slowOver.Microseconds()}
		defer slow.flush()
	}
	mercure := *hub == "mercure"
	if mercure && (*channel != "sse" || *perClient != 1 || *filters != 0 || *create) {
		fmt.Fprintln(os.Stderr, "-hub mercure takes SSE clients with one topic each, no filters, no -create")
		os.Exit(2)
	}
	var publisherToken string
	if mercure {
		publisherToken = mercureToken(*jwtKey)
	}
	if *streamURL == "" {
		*streamURL = *url
	}
	streamURLs := strings.Split(*streamURL, ",")
	var pids []int
	for _, field := range strings.Split(*pidList, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(field)); err == nil {
			pids = append(pids, n)
		}
	}

	hist := newHistogram()
	var delivered, disconnects int64
	var measuring window
	transport := &http.Transport{MaxIdleConnsPerHost: *clients + 10, MaxConnsPerHost: 0, DisableCompression: true}
	client := &http.Client{Transport: transport}
	var ready sync.WaitGroup
	ready.Add(*clients)
	name := func(i int) string {
		if *topics == 1 {
			return *topic
		}
		return fmt.Sprintf("%s-%d", *topic, i%*topics)
	}
	var createSecs float64
	if *create {
		createSecs = createTopics(*url, *topics, name, *payloadKind == "document")
	}
	for i := 0; i < *clients; i++ {
		names := make([]string, *perClient)
		for j := range names {
			names[j] = name(i**perClient + j)
		}
		base := streamURLs[(i / *topics)%len(streamURLs)]
		query := ""
		if *filters > 0 {
			query = "filter=" + neturl.QueryEscape(filter(*filterKind, i%*filters, *filters))
		}
		if mercure {
			go subscribe(client, base+"/.well-known/mercure?topic="+neturl.QueryEscape(names[0]), true, hist,
				&delivered, &disconnects, &measuring, &ready)
		} else if *channel == "ws" {
			go subscribeWS(base, names, hist, &delivered, &disconnects, &measuring, &ready)
		} else if len(names) == 1 {
			go subscribe(client, base+"/api/v1/stream/"+names[0]+"?"+query, false, hist, &delivered, &disconnects,
				&measuring, &ready)
		} else {
			go subscribe(client, base+"/api/v1/stream?topic="+strings.Join(names, "&topic=")+"&"+query, false, hist,
				&delivered, &disconnects, &measuring, &ready)
		}
		if i%100 == 99 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	ready.Wait()
	var idleCPU, idleRSS float64
	var idleThreads map[string]float64
	var idleByPid, idleByPidNoJit map[string]float64
	if *idle > 0 {
		time.Sleep(*settle)
		// Marks the window on standard error, for a profiler attached by hand.
		fmt.Fprintln(os.Stderr, "idle window:", *idle)
		before, threadsBefore := cpuTicks(*pid), threadTicks(*pid)
		pidsBefore := samplePids(pids)
		time.Sleep(*idle)
		idleCPU = float64(cpuTicks(*pid)-before) / 100 / idle.Seconds() * 100
		idleByPid, idleByPidNoJit = pidPercents(pids, pidsBefore, samplePids(pids), idle.Seconds())
		idleThreads = threadCores(threadsBefore, threadTicks(*pid), idle.Seconds())
		idleRSS = rssMiB(*pid)
	}

	padding := strings.Repeat("x", max(0, *size-72))
	documents := &documentSet{byTopic: map[string]*document{}}
	publisher := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var published, sequence int64
	publish := func() {
		seq := atomic.AddInt64(&sequence, 1)
		target := name(int(seq))
		sent := time.Now().UnixMicro()
		var body string
		if *payloadKind == "document" {
			body = documents.next(target, *size, sent)
		} else if *payloadKind == "items" {
			body = fmt.Sprintf(`{"sentAt":%d,"bucket":%d,"items":%s}`, sent, seq%int64(max(*filters, 1)), items(*size))
		} else {
			body = fmt.Sprintf(`{"sentAt":%d,"bucket":%d,"pad":"%s"}`, sent, seq%int64(max(*filters, 1)),
				padding)
		}
		var resp *http.Response
		var err error
		if mercure {
			form := neturl.Values{"topic": {target}, "data": {body}}
			req, _ := http.NewRequest("POST", *url+"/.well-known/mercure", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", "Bearer "+publisherToken)
			resp, err = publisher.Do(req)
		} else {
			resp, err = publisher.Post(*url+"/api/v1/publish/"+target, "application/json", strings.NewReader(body))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "publish:", err)
			return
		}
		// Read to the end: Go closes a connection whose answer was not read, and a new
		// connection per publication would measure TCP set-up rather than publishing.
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 202 || (mercure && resp.StatusCode == 200) {
			if measuring.holds(sent) {
				atomic.AddInt64(&published, 1)
			}
		} else {
			fmt.Fprintln(os.Stderr, "publish:", resp.Status)
		}
	}
	// -rate 0: nothing is published, the clients stay connected for the duration (idle
	// connections); the ticker then only paces the RSS samples.
	tick := time.Second
	if *rate > 0 {
		tick = time.Second / time.Duration(*rate)
	}
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	end := time.Now().Add(*warmup)
	for now := range ticker.C {
		if now.After(end) {
			break
		}
		if *rate > 0 {
			go publish()
		}
	}
	measuring.open(time.Now().UnixMicro())
	compressions := "streamgate_sse_compressions_total"
	if *channel == "ws" {
		compressions = "streamgate_ws_compressions_total"
	}
	wireStart, compressionsStart := wireBytes.Load(), counter(*url, compressions)
	cpuStart, threadsStart := cpuTicks(*pid), threadTicks(*pid)
	selfStart := cpuTicks(os.Getpid())
	pidStart := samplePids(pids)
	start := time.Now()
	end = start.Add(*duration)
	var rssSum, rssMax float64
	var rssSamples int
	lastSample := time.Now()
	for now := range ticker.C {
		if now.After(end) {
			break
		}
		if *rate > 0 {
			go publish()
		}
		if now.Sub(lastSample) >= time.Second {
			lastSample = now
			if r := rssMiB(*pid); r > 0 {
				rssSum += r
				rssSamples++
				if r > rssMax {
					rssMax = r
				}
			}
		}
	}
	elapsed := time.Since(start).Seconds()
	measuring.close(time.Now().UnixMicro())
	wireEnd, compressionsEnd := wireBytes.Load(), counter(*url, compressions)
	cpuEnd, threadsEnd := cpuTicks(*pid), threadTicks(*pid)
	selfEnd := cpuTicks(os.Getpid())
	cpuByPid, cpuByPidNoJit := pidPercents(pids, pidStart, samplePids(pids), time.Since(start).Seconds())
	time.Sleep(2 * time.Second) // let the last events arrive

	r := result{Channel: *channel, PerClient: *perClient, Clients: *clients, Topics: *topics, Rate: *rate, Size: *size, Duration: elapsed,
		Published: atomic.LoadInt64(&published), Delivered: atomic.LoadInt64(&delivered),
		Disconnects: atomic.LoadInt64(&disconnects)}
	r.Expected = r.Published * int64(*clients) * int64(*perClient) / int64(*topics)
	if *filters > 0 {
		r.Filters, r.FilterKind = *filters, *filterKind
		if *filterKind == "split" {
			r.Expected /= int64(*filters)
		}
	}
	r.DeliveredPerS = float64(r.Delivered) / elapsed
	r.Encoding = encoding
	if r.Delivered > 0 {
		r.WireBytesPerDelivery = float64(wireEnd-wireStart) / float64(r.Delivered)
	}
	if encoding != "" && r.Published > 0 {
		r.CompressionsPerEvent = (compressionsEnd - compressionsStart) / float64(r.Published)
	}
	r.P50, r.P99, r.P999 = hist.percentile(0.5), hist.percentile(0.99), hist.percentile(0.999)
	r.Max = float64(hist.max) / 1000
	if *pid > 0 && cpuEnd > cpuStart {
		r.CPUPercent = float64(cpuEnd-cpuStart) / 100 / elapsed * 100
		if r.Delivered > 0 {
			r.CPUPer1000 = float64(cpuEnd-cpuStart) / 100 / float64(r.Delivered) * 1000
		}
	}
	r.ClientCPU = float64(selfEnd-selfStart) / 100 / elapsed * 100
	if rssSamples > 0 {
		r.RSSMiB = rssSum / float64(rssSamples)
		r.MaxRSSMiB = rssMax
	}
	r.CreateSecs, r.IdleCPU, r.IdleRSSMiB = createSecs, idleCPU, idleRSS
	r.ThreadCores, r.IdleThreadCores = threadCores(threadsStart, threadsEnd, elapsed), idleThreads
	r.CPUByPid, r.IdleCPUByPid = cpuByPid, idleByPid
	r.CPUByPidNoJit, r.IdleCPUByPidNoJit = cpuByPidNoJit, idleByPidNoJit
	if *heap {
		r.HeapMiB = heapAfterGC(*pid)
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}

// filter is the CEL expression of filter k of n: distinct expressions that all look into the
// event's data.
func filter(kind string, k, n int) string {
	if kind == "split" {
		return fmt.Sprintf("data.bucket == %d", k)
	}
	return fmt.Sprintf("data.bucket != %d && size(data.pad) > %d", n+k, k)
}

// subscribe reads one SSE stream. The client is ready at streamgate's "retry:" line, which
// follows the subscription, or with readyAtAnswer (a Mercure hub, which subscribes before it
// answers) at the answer.
func subscribe(client *http.Client, url string, readyAtAnswer bool, hist *histogram, delivered, disconnects *int64,
	measuring *window, ready *sync.WaitGroup) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	resp, err := client.Do(req)
	// A topic just created on another node: a streaming node learns of it a moment later.
	for attempt := 0; err == nil && resp.StatusCode == 404 && attempt < 50; attempt++ {
		resp.Body.Close()
		time.Sleep(200 * time.Millisecond)
		resp, err = client.Do(req)
	}
	if err != nil || resp.StatusCode != 200 {
		if err == nil {
			err = fmt.Errorf("%s", resp.Status)
			resp.Body.Close()
		}
		fmt.Fprintln(os.Stderr, "subscribe:", err)
		ready.Done()
		atomic.AddInt64(disconnects, 1)
		return
	}
	defer resp.Body.Close()
	var body io.Reader = countingReader{resp.Body}
	if encoding != "" {
		if got := resp.Header.Get("Content-Encoding"); got != encoding {
			fmt.Fprintln(os.Stderr, "subscribe: asked for", encoding, "got Content-Encoding", got)
			ready.Done()
			atomic.AddInt64(disconnects, 1)
			return
		}
		var decoded io.Reader
		if encoding == "gzip" {
			decoded, err = gzip.NewReader(body)
		} else {
			decoded, err = zlib.NewReader(body)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "subscribe:", err)
			ready.Done()
			atomic.AddInt64(disconnects, 1)
			return
		}
		body = decoded
	}
	reader := bufio.NewReaderSize(body, 64*1024)
	signalled := readyAtAnswer
	if signalled {
		ready.Done()
	}
	for {
		line, err := reader.ReadSlice('\n')
		if err != nil {
			if err == bufio.ErrBufferFull {
				continue
			}
			if !signalled {
				ready.Done()
			}
			atomic.AddInt64(disconnects, 1)
			return
		}
		if !signalled && bytes.HasPrefix(line, []byte("retry:")) {
			signalled = true
			ready.Done()
			continue
		}
		if !bytes.HasPrefix(line, []byte("data:")) {
			continue
		}
		stamped(line, time.Now().UnixMicro(), hist, delivered, measuring)
	}
}

// window is the measured time: an event counts, published and delivered, when the publisher
// stamped it within the window, so an event sent just before the window opened is not
// counted as delivered in it while its acknowledgement is counted as published.
type window struct{ from, to atomic.Int64 }

func (w *window) open(now int64) {
	w.to.Store(math.MaxInt64)
	w.from.Store(now)
}

func (w *window) close(now int64) { w.to.Store(now) }

func (w *window) holds(sent int64) bool {
	from := w.from.Load()
	return from != 0 && sent >= from && sent < w.to.Load()
}

var marker = []byte(`"sentAt":`)

// patchMarker finds the send time in a patch of a document (-payload document).
var patchMarker = []byte(`"/sentAt","value":`)

// stamped records the latency of a received event from the "sentAt" in its data; it
// reports whether there was one.
func stamped(data []byte, now int64, hist *histogram, delivered *int64, measuring *window) bool {
	found := marker
	i := bytes.Index(data, marker)
	if i < 0 {
		found = patchMarker
		if i = bytes.Index(data, patchMarker); i < 0 {
			return false
		}
	}
	rest := data[i+len(found):]
	j := bytes.IndexAny(rest, ",}")
	sent, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	if err == nil && measuring.holds(sent) {
		atomic.AddInt64(delivered, 1)
		hist.record(now - sent)
		slow.record(sent, now-sent)
	}
	return true
}

// slowLog keeps the slow deliveries when -slow asks for them; nil otherwise.
type slowLog struct {
	mu   sync.Mutex
	file *bufio.Writer
	over int64
}

var slow *slowLog

func (l *slowLog) record(sent, latency int64) {
	if l == nil || latency < l.over {
		return
	}
	l.mu.Lock()
	fmt.Fprintf(l.file, "%d %d\n", sent, latency)
	l.mu.Unlock()
}

func (l *slowLog) flush() {
	l.mu.Lock()
	l.file.Flush()
	l.mu.Unlock()
}

// subscribeWS opens one WebSocket and subscribes to each topic on it; every event message
// carries the publisher's "sentAt" in its data.
func subscribeWS(base string, topics []string, hist *histogram, delivered, disconnects *int64,
	measuring *window, ready *sync.WaitGroup) {
	ctx := context.Background()
	options := &websocket.DialOptions{HTTPClient: wsClient, CompressionMode: websocket.CompressionDisabled}
	if encoding != "" {
		// permessage-deflate, each message compressed on its own, as the gateway sends them.
		options.CompressionMode = websocket.CompressionNoContextTakeover
	}
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/api/v1/ws", options)
	if err != nil {
		fmt.Fprintln(os.Stderr, "subscribe:", err)
		ready.Done()
		atomic.AddInt64(disconnects, 1)
		return
	}
	defer conn.CloseNow()
	conn.SetReadLimit(16 << 20)
	for _, topic := range topics {
		message := fmt.Sprintf(`{"subscribe":{"topic":%q}}`, topic)
		if err := conn.Write(ctx, websocket.MessageText, []byte(message)); err != nil {
			fmt.Fprintln(os.Stderr, "subscribe:", err)
			ready.Done()
			atomic.AddInt64(disconnects, 1)
			return
		}
	}
	ready.Done()
	for {
		_, message, err := conn.Read(ctx)
		if err != nil {
			atomic.AddInt64(disconnects, 1)
			return
		}
		if !stamped(message, time.Now().UnixMicro(), hist, delivered, measuring) &&
			bytes.Contains(message, []byte(`"type":"problem"`)) {
			fmt.Fprintln(os.Stderr, "problem:", string(message))
		}
	}
}

func cpuTicks(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	return statTicks(data)
}

// statTicks is the user and system CPU ticks of a /proc stat line (a process's or a thread's).
func statTicks(stat []byte) int64 {
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return utime + stime
}

// threadTick is one thread's CPU so far.
type threadTick struct {
	group string
	ticks int64
}

// trailingNumber is what tells a group's threads apart: reactor-http-epoll-3, GC Thread#1.
var trailingNumber = regexp.MustCompile(`[-#_ ]?[0-9]+$`)

// threadTicks reads the CPU ticks of each of the process's threads, by thread id, with the
// group the thread's name (as Linux keeps it in the stat line: its first 15 characters, in
// parentheses) puts it in.
func threadTicks(pid int) map[string]threadTick {
	if pid <= 0 {
		return nil
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil
	}
	ticks := make(map[string]threadTick, len(tasks))
	for _, task := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // the thread ended
		}
		name := stat[bytes.IndexByte(stat, '(')+1 : bytes.LastIndexByte(stat, ')')]
		ticks[task.Name()] = threadTick{trailingNumber.ReplaceAllString(string(name), ""), statTicks(stat)}
	}
	return ticks
}

// threadCores is each group's CPU between two readings, in cores; a thread that started in
// between counts from zero, one that ended is not counted. Groups under 0.001 core are left out.
// pidSample is a process's CPU ticks, in all and in its JIT compiler threads.
type pidSample struct{ all, jit int64 }

func samplePids(pids []int) []pidSample {
	samples := make([]pidSample, len(pids))
	for k, p := range pids {
		samples[k].all = cpuTicks(p)
		for _, thread := range threadTicks(p) {
			if strings.HasPrefix(thread.group, "C1 CompilerThre") || strings.HasPrefix(thread.group, "C2 CompilerThre") {
				samples[k].jit += thread.ticks
			}
		}
	}
	return samples
}

// pidPercents is each process's CPU between two samples, in percent of a core, in all and
// without its JIT compiler threads (whose ticks of a thread that ended meanwhile are lost,
// so the second figure may be a little high).
func pidPercents(pids []int, before, after []pidSample, seconds float64) (map[string]float64, map[string]float64) {
	if len(pids) == 0 || seconds <= 0 {
		return nil, nil
	}
	all, noJit := make(map[string]float64, len(pids)), make(map[string]float64, len(pids))
	for k, p := range pids {
		ticks := after[k].all - before[k].all
		all[strconv.Itoa(p)] = float64(ticks) / seconds
		noJit[strconv.Itoa(p)] = float64(ticks-max(0, after[k].jit-before[k].jit)) / seconds
	}
	return all, noJit
}

func threadCores(before, after map[string]threadTick, seconds float64) map[string]float64 {
	if len(after) == 0 || seconds <= 0 {
		return nil
	}
	sums := map[string]int64{}
	for tid, now := range after {
		sums[now.group] += now.ticks - before[tid].ticks
	}
	cores := map[string]float64{}
	for group, ticks := range sums {
		if c := float64(ticks) / 100 / seconds; c >= 0.001 {
			cores[group] = math.Round(c*1000) / 1000
		}
	}
	return cores
}

func rssMiB(pid int) float64 {
	if pid <= 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// createTopics creates the event topics 32 at a time and answers how long it took.
func createTopics(url string, topics int, name func(int) string, snapshot bool) float64 {
	kind := ""
	if snapshot {
		kind = `,"payloadType":"snapshot"`
	}
	start := time.Now()
	ids := make(chan string)
	var wg sync.WaitGroup
	creator := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range ids {
				resp, err := creator.Post(url+"/api/v1/topics", "application/json",
					strings.NewReader(`{"id":"`+id+`"`+kind+`}`))
				if err != nil {
					fmt.Fprintln(os.Stderr, "create:", err)
					continue
				}
				if resp.StatusCode != 201 {
					fmt.Fprintln(os.Stderr, "create", id, ":", resp.Status)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	for i := 0; i < topics; i++ {
		ids <- name(i)
	}
	close(ids)
	wg.Wait()
	return time.Since(start).Seconds()
}

// heapAfterGC runs a full GC in the gateway and answers the heap in use after it, in MiB.
func heapAfterGC(pid int) float64 {
	if pid <= 0 || exec.Command("jcmd", strconv.Itoa(pid), "GC.run").Run() != nil {
		return 0
	}
	out, err := exec.Command("jcmd", strconv.Itoa(pid), "GC.heap_info").Output()
	if err != nil {
		return 0
	}
	// "garbage-first heap   total 262144K, used 51200K [...]"
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, "used "); i >= 0 && strings.Contains(line, "heap") {
			field := strings.TrimSuffix(strings.Fields(line[i+5:])[0], "K")
			kb, _ := strconv.ParseFloat(field, 64)
			return kb / 1024
		}
	}
	return 0
}

// mercureToken is a publisher JWT for a Mercure hub: HS256 with the hub's key, allowed to
// publish to every topic.
func mercureToken(key string) string {
	token := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"mercure": map[string]any{"publish": []string{"*"}}})
	signed, err := token.SignedString([]byte(key))
	if err != nil {
		fmt.Fprintln(os.Stderr, "publisher JWT:", err)
		os.Exit(2)
	}
	return signed
}

// counter reads a counter of the gateway's Prometheus endpoint (0 when it has none).
func counter(base, name string) float64 {
	resp, err := http.Get(base + "/actuator/prometheus")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	scanner := bufio.NewScanner(resp.Body)
	scanner.Buffer(make([]byte, 1024*1024), 1024*1024)
	for scanner.Scan() {
		line := scanner.Text()
		if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
			value, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err == nil {
				return value
			}
		}
	}
	return 0
}

// items is a JSON array of about size bytes of {"id":n,"value":<9 random digits>} items, the
// shape of the reference table's documents (the mock source API's): what compression gets
// from such JSON, not from a repeated letter.
func items(size int) string {
	var out strings.Builder
	out.Grow(size + 40)
	out.WriteByte('[')
	for id := 0; out.Len() < size-32; id++ {
		if id > 0 {
			out.WriteByte(',')
		}
		fmt.Fprintf(&out, `{"id":%d,"value":%d}`, id, 100_000_000+rand.Int63n(900_000_000))
	}
	out.WriteByte(']')
	return out.String()
}

// documentSet holds the document of each snapshot topic (-payload document).
type documentSet struct {
	mu      sync.Mutex
	byTopic map[string]*document
}

type document struct{ values []int64 }

// next renews a fifth of the topic's values (all of them the first time) and returns the whole
// document with its send time, as the reference table's mock source serves it.
func (set *documentSet) next(topic string, size int, sent int64) string {
	set.mu.Lock()
	defer set.mu.Unlock()
	doc, ok := set.byTopic[topic]
	if !ok {
		doc = &document{values: make([]int64, max(1, size/30))}
		for i := range doc.values {
			doc.values[i] = 100_000_000 + rand.Int63n(900_000_000)
		}
		set.byTopic[topic] = doc
	} else {
		for n := 0; n < len(doc.values)/5; n++ {
			doc.values[rand.Intn(len(doc.values))] = 100_000_000 + rand.Int63n(900_000_000)
		}
	}
	var out strings.Builder
	out.Grow(size + 64)
	fmt.Fprintf(&out, `{"sentAt":%d,"items":[`, sent)
	for id, value := range doc.values {
		if id > 0 {
			out.WriteByte(',')
		}
		fmt.Fprintf(&out, `{"id":%d,"value":%d}`, id, value)
	}
	out.WriteString("]}")
	return out.String()
}

// wsClient dials WebSocket connections whose reads count in wireBytes.
var wsClient = &http.Client{Transport: &http.Transport{
	DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return countingConn{conn}, nil
	},
}}

type countingConn struct{ net.Conn }

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	wireBytes.Add(int64(n))
	return n, err
}
