CREATE INDEX "posts_deleted_at_idx" ON "posts" USING btree ("deleted_at") WHERE "posts"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX "post_favorites_user_post_idx" ON "post_favorites" USING btree ("user_id","post_id");--> statement-breakpoint
CREATE INDEX "post_likes_user_post_idx" ON "post_likes" USING btree ("user_id","post_id");