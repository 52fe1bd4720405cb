# Receives pay-checkout's signed webhooks (Standard Webhooks): ruby receiver.rb 8000
require "base64"
require "json"
require "openssl"
require "socket"

unless ENV.fetch("WEBHOOK_SECRET", "").start_with?("whsec_") # never check against an empty key
  abort "WEBHOOK_SECRET is not set: give it this endpoint's whsec_ secret from your .env"
end
SECRET = Base64.strict_decode64(ENV.fetch("WEBHOOK_SECRET").delete_prefix("whsec_"))
SEEN_FILE = ENV.fetch("WEBHOOK_SEEN_FILE", "webhook-ids.txt")

def status_for(headers, body) # body: the raw bytes, checked before any JSON parsing
  id, timestamp = headers["webhook-id"].to_s, headers["webhook-timestamp"].to_s
  expected = "v1," + Base64.strict_encode64(OpenSSL::HMAC.digest("SHA256", SECRET, "#{id}.#{timestamp}.#{body}"))
  signatures = headers["webhook-signature"].to_s.split(" ")
  signed = signatures.count { |signature| OpenSSL.secure_compare(expected, signature) } > 0 # constant time
  return 400 unless signed && timestamp.match?(/\A\d+\z/) && (Time.now.to_i - timestamp.to_i).abs <= 300
  File.open(SEEN_FILE, File::RDWR | File::CREAT) do |seen| # de-duplicate on webhook-id
    seen.flock(File::LOCK_EX)
    unless seen.read.split("\n").include?(id)
      event = JSON.parse(body) # act on event["type"] and event["data"], or queue it
      seen.write("#{id}\n")
    else
      warn "#{id} again: answered, already acted on"
    end
  end
  204 # within 15 seconds; slow work belongs in a queue
end

server = TCPServer.new("127.0.0.1", Integer(ARGV.fetch(0, "8000")))
loop do # a bare HTTP/1.1 server from the standard library; behind Rack, use request.body.read instead
  client = server.accept.binmode
  client.gets # the request line
  headers = {}
  while (line = client.gets) && line != "\r\n"
    name, value = line.split(":", 2)
    headers[name.strip.downcase] = value.to_s.strip
  end
  status = status_for(headers, client.read(headers["content-length"].to_i)) rescue 400
  client.write("HTTP/1.1 #{status} \r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
  client.close
end
