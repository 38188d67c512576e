"""Reads a compressed SSE stream with Python's own streaming zlib decoder, as a client nobody on
the team wrote would: prints the Content-Encoding, then each event the moment its bytes decode,
then whether the stream ended with a complete trailer (zlib checks its checksum).

    python3 compressed_stream.py URL gzip|deflate [LAST_EVENT_ID]
"""
import sys
import urllib.request
import zlib

url, encoding = sys.argv[1], sys.argv[2]
headers = {'Accept': 'text/event-stream', 'Accept-Encoding': encoding}
if len(sys.argv) > 3:
    headers['Last-Event-ID'] = sys.argv[3]
response = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=120)
print('content-encoding', response.headers.get('Content-Encoding'), flush=True)
decoder = zlib.decompressobj(31 if encoding == 'gzip' else 15)
text = ''
while True:
    chunk = response.read1(65536)
    if not chunk:
        break
    text += decoder.decompress(chunk).decode('utf-8')
    while '\n\n' in text:
        frame, text = text.split('\n\n', 1)
        fields = {}
        for line in frame.split('\n'):
            if not line.startswith(':') and ': ' in line:
                name, value = line.split(': ', 1)
                fields[name] = value
        if 'data' in fields:
            print('event', fields.get('id'), fields.get('event'), fields['data'], flush=True)
print('end', 'complete' if decoder.eof else 'incomplete', flush=True)
