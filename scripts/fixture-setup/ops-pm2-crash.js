console.log('worker starting');
throw new Error('missing env var QUEUE_URL');
