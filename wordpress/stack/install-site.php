<?php
/**
 * Installs the wp-stack harness site and generates its content; run by scripts/wp-stack.sh
 * (once each, guarded by marker files in target/wp-stack/state/):
 *
 *   php install-site.php install   wp_install() (admin/admin, admin@example.test), permalinks
 *                                  /%year%/%monthnum%/%postname%/, theme twentytwentythree,
 *                                  WordPress's sample post/page/comment removed
 *   php install-site.php content   300 posts (10 categories, 60 tags, 4 postmeta each), 5 pages,
 *                                  1000 approved comments (about a quarter of them replies)
 *
 * and for a multisite stack (WP_STACK_MULTISITE=1), after `install`:
 *
 *   php install-site.php network   the network tables and the network (subdirectories), on the
 *                                  single site just installed; the caller then turns MULTISITE on
 *   php install-site.php sites     with MULTISITE on: a second site at /second/, and three posts
 *                                  on each site
 *
 * The content is the same on every install (fixed random seed). It never uses the object-cache
 * drop-in, even when one is enabled: the CLI has no shared cache.
 */

if (PHP_SAPI !== 'cli') {
    exit(1);
}
$mode = $argv[1] ?? '';
if (!in_array($mode, ['install', 'content', 'network', 'sites'], true)) {
    fwrite(STDERR, "usage: php install-site.php install|content|network|sites\n");
    exit(2);
}

define('SAVEQUERIES', false);
if ($mode === 'install') {
    define('WP_INSTALLING', true);
}
if ($mode === 'network') {
    define('WP_INSTALLING_NETWORK', true);
}
// No drop-in here (hooks can be given to WordPress before it loads, as $wp_filter).
$GLOBALS['wp_filter']['enable_loading_object_cache_dropin'][10][] = [
    'function' => static fn () => false,
    'accepted_args' => 1,
];
// No mail (there is no MTA): wp_install() mails the admin; both functions are pluggable.
function wp_new_blog_notification($blog_title, $blog_url, $user_id, $password)
{
}
function wp_mail($to, $subject, $message, $headers = '', $attachments = [])
{
    return true;
}

require __DIR__ . '/../tests/bootstrap-wp.php';

$t0 = microtime(true);
if ($mode === 'install') {
    stack_install();
} elseif ($mode === 'network') {
    stack_network();
} elseif ($mode === 'sites') {
    stack_sites();
} else {
    stack_content();
}
printf("install-site.php %s: done in %.1fs\n", $mode, microtime(true) - $t0);

function stack_install(): void
{
    global $wpdb, $wp_rewrite;
    require_once ABSPATH . 'wp-admin/includes/upgrade.php';
    if (is_blog_installed()) {
        echo "already installed\n";
    } else {
        $r = wp_install('shmcache WP Stack', 'admin', 'admin@example.test', true, '', 'admin');
        echo "installed: user {$r['user_id']}\n";
    }
    // WordPress's sample content: "Hello world!" with its comment, "Sample Page", the privacy
    // policy draft.
    foreach (get_posts(['post_type' => ['post', 'page'], 'post_status' => 'any', 'numberposts' => -1]) as $p) {
        wp_delete_post($p->ID, true);
    }
    update_option('blogdescription', 'A real WordPress site for testing the shmcache object cache');
    update_option('posts_per_page', 10);
    update_option('thread_comments', 1);
    update_option('thread_comments_depth', 5);
    update_option('page_comments', 0);
    update_option('timezone_string', 'UTC');
    update_option('default_pingback_flag', 0);
    update_option('default_ping_status', 'closed');
    switch_theme('twentytwentythree');
    $wp_rewrite->set_permalink_structure('/%year%/%monthnum%/%postname%/');
    $wp_rewrite->set_category_base('');
    $wp_rewrite->set_tag_base('');
    flush_rewrite_rules(false);
    echo 'theme ', get_stylesheet(), ', permalinks ', get_option('permalink_structure'), "\n";
}

function stack_network(): void
{
    require_once ABSPATH . 'wp-admin/includes/upgrade.php';
    require_once ABSPATH . 'wp-admin/includes/network.php';
    global $wpdb;
    // The network tables have no names yet on a single site (wp-admin/network.php does the same).
    foreach ($wpdb->tables('ms_global') as $table => $prefixed_table) {
        $wpdb->$table = $prefixed_table;
    }
    install_network();
    $r = populate_network(1, $_SERVER['HTTP_HOST'], 'admin@example.test', 'shmcache WP Stack Network', '/', false);
    if (is_wp_error($r) && $r->get_error_code() !== 'siteid_exists') {
        throw new RuntimeException($r->get_error_message());
    }
    echo "network on {$_SERVER['HTTP_HOST']}\n";
}

function stack_sites(): void
{
    $network = get_network();
    $second = get_sites(['domain' => $network->domain, 'path' => '/second/']);
    $second_id = $second ? (int) $second[0]->blog_id : wpmu_create_blog($network->domain, '/second/', 'Second Site', 1);
    if (is_wp_error($second_id)) {
        throw new RuntimeException($second_id->get_error_message());
    }
    // Site domains are sanitised without the ":port" that this network's domain has: put it back.
    global $wpdb;
    $wpdb->update($wpdb->blogs, ['domain' => $network->domain], ['blog_id' => $second_id]);
    clean_blog_cache($second_id);
    switch_to_blog($second_id);
    update_option('siteurl', 'http://' . $network->domain . '/second/');
    update_option('home', 'http://' . $network->domain . '/second/');
    restore_current_blog();
    foreach ([get_main_site_id(), $second_id] as $site_id) {
        switch_to_blog($site_id);
        switch_theme('twentytwentythree');
        if (!get_posts(['numberposts' => 1, 's' => "of site $site_id"])) {
            for ($i = 1; $i <= 3; $i++) {
                wp_insert_post(['post_title' => "Post $i of site $site_id", 'post_content' => "<!-- wp:paragraph -->\n<p>Body $i.</p>\n<!-- /wp:paragraph -->", 'post_status' => 'publish', 'post_author' => 1]);
            }
        }
        restore_current_blog();
    }
    echo "sites: ", implode(', ', array_map(static fn ($s) => $s->path, get_sites())), "\n";
}

/** A deterministic word picker. */
function pick(array $list)
{
    return $list[mt_rand(0, count($list) - 1)];
}

function stack_sentence(array $topic): string
{
    static $openers = ['In practice,', 'Most of the time,', 'As it turns out,', 'For beginners,', 'Over the years,',
        'Surprisingly,', 'On a good day,', 'According to the experts we asked,', 'In our experience,', 'Today,'];
    static $verbs = ['changes', 'improves', 'shapes', 'complicates', 'simplifies', 'reveals', 'depends on',
        'transforms', 'supports', 'challenges', 'explains', 'rewards'];
    static $adjs = ['careful', 'quiet', 'surprising', 'practical', 'modern', 'traditional', 'patient', 'honest',
        'small', 'ambitious', 'everyday', 'seasonal', 'local', 'hidden'];
    static $tails = ['more than most people expect', 'in ways that are easy to miss', 'for better and for worse',
        'long before anyone notices', 'without much fuss', 'if you give it enough time', 'at every level',
        'once the basics are in place', 'when nobody is watching', 'on a tight budget'];
    $noun1 = pick($topic['nouns']);
    $noun2 = pick($topic['nouns']);
    switch (mt_rand(0, 3)) {
        case 0:
            return sprintf('%s a %s %s %s the way we think about %s.', pick($openers), pick($adjs), $noun1,
                pick($verbs), $noun2);
        case 1:
            return sprintf('The %s %s %s %s.', pick($adjs), $noun1, pick($verbs), pick($tails));
        case 2:
            return ucfirst(sprintf('%s %s the %s %s, and the %s follows.', $noun1, pick($verbs), pick($adjs), $noun2,
                pick($topic['nouns'])));
        default:
            return sprintf('Anyone who has worked with %s knows that %s %s %s.', $noun1, $noun2, pick($verbs),
                pick($tails));
    }
}

function stack_paragraph(array $topic, int $sentences): string
{
    $s = [];
    for ($i = 0; $i < $sentences; $i++) {
        $s[] = stack_sentence($topic);
    }
    return implode(' ', $s);
}

/** Block-editor markup (twentytwentythree is a block theme). */
function stack_post_content(array $topic): string
{
    $blocks = [];
    $n = mt_rand(3, 7);
    for ($i = 0; $i < $n; $i++) {
        if ($i === 2 && mt_rand(0, 1)) {
            $blocks[] = "<!-- wp:heading -->\n<h2>" . ucfirst(pick($topic['nouns'])) . ' and ' . pick($topic['nouns'])
                . "</h2>\n<!-- /wp:heading -->";
        }
        $blocks[] = "<!-- wp:paragraph -->\n<p>" . esc_html(stack_paragraph($topic, mt_rand(3, 6)))
            . "</p>\n<!-- /wp:paragraph -->";
    }
    if (mt_rand(0, 3) === 0) {
        $items = '';
        for ($i = 0; $i < mt_rand(3, 5); $i++) {
            $items .= '<li>' . ucfirst(pick($topic['nouns'])) . '</li>';
        }
        $blocks[] = "<!-- wp:list -->\n<ul>$items</ul>\n<!-- /wp:list -->";
    }
    return implode("\n\n", $blocks);
}

function stack_topics(): array
{
    return [
        'Technology' => ['nouns' => ['software', 'laptop', 'database', 'network', 'smartphone', 'cloud service', 'open source project', 'keyboard', 'server', 'programming language', 'cache', 'browser'],
            'subjects' => ['Home Server', 'Mechanical Keyboard', 'Database Backup', 'Browser Extension', 'Static Site', 'Linux Desktop', 'Password Manager', 'Home Network']],
        'Travel' => ['nouns' => ['train journey', 'mountain village', 'harbour', 'old town', 'night market', 'coastline', 'guesthouse', 'ferry', 'museum', 'road trip', 'hiking trail', 'passport'],
            'subjects' => ['Weekend in Lisbon', 'Night Train', 'Alpine Hut', 'Island Ferry', 'Desert Road Trip', 'Old Town Walk', 'Coastal Path', 'Budget Backpack']],
        'Food & Drink' => ['nouns' => ['sourdough', 'espresso', 'spice mix', 'cast iron pan', 'tomato sauce', 'farmers market', 'dumpling', 'olive oil', 'recipe', 'kitchen knife', 'broth', 'pastry'],
            'subjects' => ['Sourdough Starter', 'Perfect Espresso', 'Weeknight Curry', 'Homemade Pasta', 'Summer Salad', 'Slow Roast', 'Fermented Hot Sauce', 'Breakfast Bowl']],
        'Science' => ['nouns' => ['experiment', 'telescope', 'hypothesis', 'cell', 'ocean current', 'climate model', 'fossil', 'particle', 'microscope', 'data set', 'volcano', 'galaxy'],
            'subjects' => ['Deep Sea Life', 'Dark Matter', 'Ancient Fossil', 'Climate Model', 'Quantum Computer', 'Bird Migration', 'Solar Flare', 'Gut Microbiome']],
        'Gardening' => ['nouns' => ['compost', 'raised bed', 'tomato plant', 'seed tray', 'rose bush', 'greenhouse', 'mulch', 'herb garden', 'watering can', 'fruit tree', 'soil', 'hedge'],
            'subjects' => ['Raised Bed', 'Winter Garden', 'Compost Heap', 'Balcony Herbs', 'Tomato Harvest', 'Fruit Tree Pruning', 'Wildflower Meadow', 'Seed Saving']],
        'Music' => ['nouns' => ['guitar', 'vinyl record', 'concert', 'piano', 'melody', 'rehearsal', 'drum kit', 'choir', 'album', 'synthesizer', 'festival', 'chord progression'],
            'subjects' => ['First Guitar', 'Vinyl Collection', 'Home Studio', 'Jazz Standard', 'Summer Festival', 'Piano Practice', 'Modular Synth', 'Live Album']],
        'Books' => ['nouns' => ['novel', 'library', 'short story', 'poem', 'bookshop', 'reading list', 'biography', 'chapter', 'author', 'translation', 'notebook', 'book club'],
            'subjects' => ['Reading List', 'Classic Novel', 'Local Bookshop', 'Book Club', 'Short Story', 'Poetry Collection', 'Literary Translation', 'Summer Reading']],
        'Photography' => ['nouns' => ['camera', 'lens', 'tripod', 'darkroom', 'portrait', 'landscape', 'light meter', 'film roll', 'street scene', 'shutter', 'golden hour', 'print'],
            'subjects' => ['Film Camera', 'Street Photography', 'Portrait Lighting', 'Night Sky', 'Prime Lens', 'Darkroom Print', 'Landscape Trip', 'Photo Walk']],
        'Health' => ['nouns' => ['morning run', 'sleep routine', 'stretching', 'meal plan', 'yoga class', 'habit', 'walk', 'hydration', 'posture', 'breathing exercise', 'bicycle', 'rest day'],
            'subjects' => ['Morning Routine', 'First 10K', 'Better Sleep', 'Desk Posture', 'Strength Training', 'Cycling Commute', 'Mindful Breathing', 'Rest Day']],
        'Business' => ['nouns' => ['startup', 'customer', 'invoice', 'marketing plan', 'small shop', 'meeting', 'budget', 'team', 'product launch', 'spreadsheet', 'negotiation', 'supplier'],
            'subjects' => ['Small Shop', 'Product Launch', 'Remote Team', 'Pricing Strategy', 'First Hire', 'Quarterly Budget', 'Customer Interview', 'Side Project']],
    ];
}

function stack_title(string $subject): string
{
    static $patterns = [
        'How to Start With a %s', 'Ten Things Nobody Tells You About the %s', 'Why the %s Still Matters',
        'A Beginner\'s Guide to the %s', 'What I Learned From a Year With a %s', 'The Quiet Joy of the %s',
        'Notes on the %s', 'The %s, Revisited', 'Is the %s Worth It?', 'Five Mistakes I Made With My %s',
        'Inside the %s', 'The Case for a Simpler %s', 'Lessons From the %s', 'Getting the Most Out of a %s',
    ];
    return sprintf(pick($patterns), $subject);
}

function stack_content(): void
{
    global $wpdb;
    mt_srand(20240611);
    wp_set_current_user(1); // an administrator: unfiltered_html, so no kses on every post
    remove_action('publish_post', '_publish_post_hook', 5); // no _pingme/_encloseme meta, no pings
    wp_defer_term_counting(true);
    wp_defer_comment_counting(true);
    $wpdb->query('START TRANSACTION');

    $topics = stack_topics();
    $cats = [];
    foreach (array_keys($topics) as $name) {
        $t = wp_insert_term($name, 'category', ['description' => "Posts about " . strtolower($name) . '.']);
        $cats[$name] = is_wp_error($t) ? (int) get_term_by('name', $name, 'category')->term_id : (int) $t['term_id'];
    }
    $tag_words = ['beginner', 'advanced', 'tips', 'review', 'guide', 'opinion', 'interview', 'weekend', 'budget',
        'diy', 'history', 'checklist', 'long read', 'quick read', 'photos', 'video', 'update', 'essentials',
        'mistakes', 'favourites', 'winter', 'spring', 'summer', 'autumn', 'europe', 'asia', 'americas',
        'africa', 'city', 'countryside', 'family', 'solo', 'tools', 'gear', 'software', 'hardware', 'data',
        'research', 'classic', 'modern', 'minimalism', 'sustainability', 'community', 'events', 'podcast',
        'books', 'recipes', 'fitness', 'productivity', 'design', 'craft', 'learning', 'career', 'money',
        'travel hacks', 'slow living', 'experiments', 'nostalgia', 'how-to', 'behind the scenes'];
    $tags = [];
    foreach ($tag_words as $w) {
        $t = wp_insert_term($w, 'post_tag');
        $tags[] = is_wp_error($t) ? (int) get_term_by('name', $w, 'post_tag')->term_id : (int) $t['term_id'];
    }
    // Exactly these 10 categories: "Uncategorized" goes (after it stops being the default).
    update_option('default_category', $cats['Technology']);
    $uncategorized = get_term_by('slug', 'uncategorized', 'category');
    if ($uncategorized) {
        wp_delete_term($uncategorized->term_id, 'category');
    }
    echo count($cats), ' categories, ', count($tags), " tags\n";

    // 300 posts, oldest first, from 2022-01-03 to about 2024-06.
    $names = array_keys($topics);
    $start = strtotime('2022-01-03 09:00:00 UTC');
    $posts = [];
    for ($i = 0; $i < 300; $i++) {
        $cat = $names[$i % 10];
        $topic = $topics[$cat];
        $date = gmdate('Y-m-d H:i:s', $start + $i * 3 * 86400 + mt_rand(0, 20 * 3600));
        $content = stack_post_content($topic);
        $post_cats = [$cats[$cat]];
        if (mt_rand(0, 4) === 0) {
            $post_cats[] = $cats[$names[mt_rand(0, 9)]];
        }
        $id = wp_insert_post([
            'post_type' => 'post',
            'post_status' => 'publish',
            'post_author' => 1,
            'post_title' => stack_title(pick($topic['subjects'])),
            'post_content' => $content,
            'post_excerpt' => '',
            'post_date' => $date,
            'post_date_gmt' => $date,
            'comment_status' => 'open',
            'ping_status' => 'closed',
            'post_category' => array_values(array_unique($post_cats)),
            'meta_input' => [
                'stack_views' => mt_rand(10, 50000),
                'stack_subtitle' => ucfirst(stack_sentence($topic)),
                'stack_reading_minutes' => max(1, (int) round(str_word_count(wp_strip_all_tags($content)) / 200)),
                'stack_source' => 'https://example.test/sources/' . ($i + 1),
            ],
        ], true);
        if (is_wp_error($id)) {
            throw new RuntimeException($id->get_error_message());
        }
        $post_tags = [];
        $n = mt_rand(2, 5);
        for ($k = 0; $k < $n; $k++) {
            $post_tags[] = pick($tags);
        }
        wp_set_post_terms($id, array_values(array_unique($post_tags)), 'post_tag');
        $posts[] = ['id' => $id, 'ts' => strtotime($date . ' UTC')];
    }
    stick_post($posts[299]['id']);
    echo count($posts), " posts\n";

    // 5 pages (Team is a child of About).
    $page_topic = $topics['Business'];
    $pages = [];
    foreach (['About', 'Team', 'Contact', 'Privacy Policy', 'Colophon'] as $k => $title) {
        $pages[$title] = wp_insert_post([
            'post_type' => 'page',
            'post_status' => 'publish',
            'post_author' => 1,
            'post_title' => $title,
            'post_content' => stack_post_content($page_topic),
            'post_parent' => $title === 'Team' ? $pages['About'] : 0,
            'menu_order' => $k,
            'post_date' => '2022-01-01 12:00:00',
            'post_date_gmt' => '2022-01-01 12:00:00',
            'comment_status' => 'closed',
        ], true);
        if (is_wp_error($pages[$title])) {
            throw new RuntimeException($pages[$title]->get_error_message());
        }
    }
    update_option('wp_page_for_privacy_policy', $pages['Privacy Policy']);
    echo count($pages), " pages\n";

    // 1000 approved comments; about a quarter reply to an earlier comment on the same post.
    $first = ['Anna', 'Ben', 'Chloe', 'David', 'Emma', 'Felix', 'Grace', 'Hugo', 'Isla', 'Jonas', 'Kira', 'Liam',
        'Maya', 'Noah', 'Olivia', 'Pablo', 'Quinn', 'Rosa', 'Sami', 'Tara', 'Umar', 'Vera', 'Wes', 'Yara', 'Zoe'];
    $last = ['Meyer', 'Okafor', 'Rossi', 'Nguyen', 'Silva', 'Kowalski', 'Haddad', 'Larsen', 'Tanaka', 'Dubois',
        'Murphy', 'Novak', 'Garcia', 'Ivanova', 'Schmidt'];
    $openers = ['Great post!', 'Thanks for writing this.', 'I disagree a little here.', 'This matches my experience.',
        'Interesting read.', 'I tried this last week.', 'Bookmarked.', 'Could you expand on this?',
        'Lovely write-up.', 'Not sure about this one.'];
    $per_post = [];
    $now = time();
    for ($c = 0; $c < 1000; $c++) {
        // Newer posts get more comments.
        $pi = (int) floor(300 * sqrt(mt_rand(0, 1000000) / 1000000.0)) % 300;
        $p = $posts[$pi];
        $topic = $topics[$names[$pi % 10]];
        $parent = 0;
        $base_ts = $p['ts'];
        if (!empty($per_post[$p['id']]) && mt_rand(0, 2) === 0) {
            $par = pick($per_post[$p['id']]);
            $parent = $par['id'];
            $base_ts = $par['ts'];
        }
        $ts = min($now - 3600, $base_ts + mt_rand(600, 30 * 86400));
        $author = pick($first) . ' ' . pick($last);
        $by_admin = mt_rand(0, 19) === 0;
        $cid = wp_insert_comment([
            'comment_post_ID' => $p['id'],
            'comment_author' => $by_admin ? 'admin' : $author,
            'comment_author_email' => $by_admin ? 'admin@example.test'
                : strtolower(str_replace(' ', '.', $author)) . '@example.test',
            'comment_author_url' => mt_rand(0, 3) === 0 ? 'https://example.test/~' . strtolower(strtok($author, ' ')) : '',
            'comment_author_IP' => '127.0.0.' . mt_rand(2, 254),
            'comment_agent' => 'Mozilla/5.0 (X11; Linux x86_64) wp-stack',
            'comment_content' => pick($openers) . ' ' . stack_paragraph($topic, mt_rand(1, 3)),
            'comment_approved' => 1,
            'comment_type' => 'comment',
            'comment_parent' => $parent,
            'user_id' => $by_admin ? 1 : 0,
            'comment_date' => gmdate('Y-m-d H:i:s', $ts),
            'comment_date_gmt' => gmdate('Y-m-d H:i:s', $ts),
        ]);
        if (!$cid) {
            throw new RuntimeException('wp_insert_comment failed: ' . $wpdb->last_error);
        }
        $per_post[$p['id']][] = ['id' => $cid, 'ts' => $ts];
    }
    echo "1000 comments\n";

    wp_defer_term_counting(false);
    wp_defer_comment_counting(false);
    $wpdb->query('COMMIT');
    flush_rewrite_rules(false);

    $counts = $wpdb->get_row("SELECT
        (SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_type = 'post' AND post_status = 'publish') AS posts,
        (SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_type = 'page' AND post_status = 'publish') AS pages,
        (SELECT COUNT(*) FROM {$wpdb->comments} WHERE comment_approved = '1') AS comments,
        (SELECT COUNT(*) FROM {$wpdb->comments} WHERE comment_parent > 0) AS replies,
        (SELECT COUNT(*) FROM {$wpdb->postmeta}) AS postmeta,
        (SELECT COUNT(*) FROM {$wpdb->term_taxonomy} WHERE taxonomy = 'category') AS categories,
        (SELECT COUNT(*) FROM {$wpdb->term_taxonomy} WHERE taxonomy = 'post_tag') AS tags", ARRAY_A);
    echo 'database: ', json_encode($counts), "\n";
}
