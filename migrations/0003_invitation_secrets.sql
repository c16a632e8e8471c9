ALTER TABLE `members` ADD `invite_token_hash` text;--> statement-breakpoint
ALTER TABLE `members` ADD `invite_expires_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `members_invite_token_hash` ON `members` (`invite_token_hash`);