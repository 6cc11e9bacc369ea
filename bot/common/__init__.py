"""What the chat adapters share: message splitting, the wording of replies, upload checks and
throttled progress messages. Each platform keeps only its own markup and client calls."""
